#include "olv2/models/activation_checkpoint.h"

#include <torch/torch.h>

#include <memory>
#include <mutex>
#include <utility>

#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// The random state of one device's default generator.
struct RngSnapshot {
  c10::Device device;
  at::Tensor state;
};

at::Generator default_generator(const c10::Device& device) {
  return device.is_cpu() ? at::detail::getDefaultCPUGenerator()
                         : at::globalContext().defaultGenerator(device);
}

RngSnapshot capture_rng(const c10::Device& device) {
  at::Generator generator = default_generator(device);
  std::lock_guard<std::mutex> lock(generator.mutex());
  return {device, generator.get_state()};
}

void restore_rng(const RngSnapshot& snapshot) {
  at::Generator generator = default_generator(snapshot.device);
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(snapshot.state);
}

// The CPU generator and that of every accelerator device an input lives on.
std::vector<c10::Device> rng_devices(const std::vector<at::Tensor>& inputs) {
  std::vector<c10::Device> devices{c10::Device(c10::kCPU)};
  for (const at::Tensor& input : inputs) {
    if (!input.defined() || input.device().is_cpu()) continue;
    if (std::find(devices.begin(), devices.end(), input.device()) == devices.end()) {
      devices.push_back(input.device());
    }
  }
  return devices;
}

// Everything the recomputation needs, kept alive by the autograd node.
struct SegmentRecord : torch::CustomClassHolder {
  CheckpointSegment segment;
  size_t num_inputs = 0;
  std::vector<bool> input_requires_grad;
  std::vector<RngSnapshot> rng;
  AutocastState cpu_autocast;
  AutocastState cuda_autocast;
};

class CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                at::TensorList inputs,
                                                c10::intrusive_ptr<SegmentRecord> record,
                                                at::TensorList params) {
    std::vector<at::Tensor> input_vector(inputs.begin(), inputs.end());
    record->num_inputs = input_vector.size();
    for (const at::Tensor& input : input_vector) {
      record->input_requires_grad.push_back(input.defined() && input.requires_grad());
    }
    for (const c10::Device& device : rng_devices(input_vector)) {
      record->rng.push_back(capture_rng(device));
    }
    record->cpu_autocast = AutocastState::current(c10::kCPU);
    record->cuda_autocast = AutocastState::current(c10::kCUDA);

    std::vector<at::Tensor> saved = input_vector;
    saved.insert(saved.end(), params.begin(), params.end());
    ctx->save_for_backward(saved);
    ctx->saved_data["record"] = c10::IValue::make_capsule(record);

    // Runs without recording a graph: Function::apply calls forward in no-grad
    // mode.
    return record->segment(input_vector);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    auto record =
        c10::static_intrusive_pointer_cast<SegmentRecord>(ctx->saved_data["record"].toCapsule());
    const std::vector<at::Tensor> saved = ctx->get_saved_variables();
    const size_t num_inputs = record->num_inputs;

    std::vector<at::Tensor> inputs;
    std::vector<at::Tensor> targets;
    for (size_t i = 0; i < num_inputs; ++i) {
      at::Tensor input = saved[i].defined() ? saved[i].detach() : saved[i];
      if (record->input_requires_grad[i]) {
        input.requires_grad_(true);
        targets.push_back(input);
      }
      inputs.push_back(input);
    }
    for (size_t i = num_inputs; i < saved.size(); ++i) {
      if (saved[i].defined() && saved[i].requires_grad()) targets.push_back(saved[i]);
    }

    std::vector<at::Tensor> outputs;
    {
      // Fork the RNG: replay the forward-time state, then put back the current
      // one.
      std::vector<RngSnapshot> current;
      for (const RngSnapshot& snapshot : record->rng) {
        current.push_back(capture_rng(snapshot.device));
      }
      for (const RngSnapshot& snapshot : record->rng) restore_rng(snapshot);
      {
        AutocastGuard cpu_autocast(c10::kCPU, record->cpu_autocast);
        AutocastGuard cuda_autocast(c10::kCUDA, record->cuda_autocast);
        torch::AutoGradMode grad_mode(true);
        outputs = record->segment(inputs);
      }
      for (const RngSnapshot& snapshot : current) restore_rng(snapshot);
    }
    if (outputs.size() != grad_outputs.size()) {
      throw runtime_error("activation checkpoint: the recomputed segment returned " +
                          std::to_string(outputs.size()) + " tensors, the forward pass " +
                          std::to_string(grad_outputs.size()));
    }

    std::vector<at::Tensor> differentiable_outputs;
    std::vector<at::Tensor> output_grads;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].defined() && outputs[i].requires_grad() && grad_outputs[i].defined()) {
        differentiable_outputs.push_back(outputs[i]);
        output_grads.push_back(grad_outputs[i]);
      }
    }
    std::vector<at::Tensor> target_grads(targets.size());
    if (!differentiable_outputs.empty() && !targets.empty()) {
      target_grads = torch::autograd::grad(differentiable_outputs, targets, output_grads,
                                           /*retain_graph=*/false, /*create_graph=*/false,
                                           /*allow_unused=*/true);
    }

    // One slot per forward argument, lists flattened: inputs, the record,
    // params.
    torch::autograd::variable_list result;
    size_t next_target = 0;
    for (size_t i = 0; i < num_inputs; ++i) {
      result.push_back(record->input_requires_grad[i] ? target_grads[next_target++] : at::Tensor());
    }
    result.emplace_back();
    for (size_t i = num_inputs; i < saved.size(); ++i) {
      const bool has_grad = saved[i].defined() && saved[i].requires_grad();
      result.push_back(has_grad ? target_grads[next_target++] : at::Tensor());
    }
    return result;
  }
};

}  // namespace

std::vector<at::Tensor> checkpoint(CheckpointSegment segment, const std::vector<at::Tensor>& inputs,
                                   const std::vector<at::Tensor>& params) {
  auto record = c10::make_intrusive<SegmentRecord>();
  record->segment = std::move(segment);
  return CheckpointFunction::apply(at::TensorList(inputs), record, at::TensorList(params));
}

at::Tensor checkpoint(std::function<at::Tensor(const at::Tensor&)> segment, const at::Tensor& input,
                      const std::vector<at::Tensor>& params) {
  auto wrapped = [segment = std::move(segment)](const std::vector<at::Tensor>& inputs) {
    return std::vector<at::Tensor>{segment(inputs.at(0))};
  };
  return checkpoint(wrapped, std::vector<at::Tensor>{input}, params).at(0);
}

}  // namespace olv2
