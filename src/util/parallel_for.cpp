#include "olv2/util/parallel_for.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace olv2 {

void parallel_for(std::size_t count, std::size_t max_workers,
                  const std::function<void(std::size_t)>& body) {
  const std::size_t num_workers = std::max<std::size_t>(
      1, std::min(
             {static_cast<std::size_t>(std::thread::hardware_concurrency()), max_workers, count}));
  std::vector<std::exception_ptr> errors(num_workers);
  std::vector<std::thread> workers;
  for (std::size_t w = 0; w < num_workers; ++w) {
    workers.emplace_back([&, w] {
      try {
        for (std::size_t i = w; i < count; i += num_workers) body(i);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace olv2
