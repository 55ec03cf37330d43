#include "olv2/data/sample_dump.h"

#include <ATen/ATen.h>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

at::Tensor shapes_tensor(const std::vector<std::array<int64_t, 3>>& shapes) {
  at::Tensor t = at::empty({static_cast<int64_t>(shapes.size()), 3}, at::kLong);
  int64_t* p = t.data_ptr<int64_t>();
  for (const auto& shape : shapes) p = std::copy(shape.begin(), shape.end(), p);
  return t;
}

// Per camera and channel: mean and population std in float64, min and max.
void image_statistics(const at::Tensor& img, at::Tensor& mean, at::Tensor& std, at::Tensor& min,
                      at::Tensor& max) {
  const int64_t cameras = img.size(0);
  mean = at::empty({cameras, 3}, at::kDouble);
  std = at::empty({cameras, 3}, at::kDouble);
  min = at::empty({cameras, 3}, at::kFloat);
  max = at::empty({cameras, 3}, at::kFloat);
  for (int64_t c = 0; c < cameras; ++c) {
    const at::Tensor planes = img[c].flatten(1);  // [3, H*W]
    const at::Tensor wide = planes.to(at::kDouble);
    mean[c] = wide.mean(1);
    std[c] = wide.std(1, /*unbiased=*/false);
    min[c] = std::get<0>(planes.min(1));
    max[c] = std::get<0>(planes.max(1));
  }
}

int64_t as_number(const std::string& text, const FrameKey& key) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || text.size() > 18) {
    throw input_error("frame " + key.split + "/" + key.segment_id + "/" + key.timestamp +
                      ": sample_order needs numeric segment ids and timestamps, got '" + text +
                      "'");
  }
  return std::stoll(text);
}

}  // namespace

void append_sample_dump(const Sample& sample, const std::string& split, PthDictItems& out) {
  const std::string prefix = split + "." + sample.meta.sample_idx + ".";
  auto add = [&](const char* name, const at::Tensor& t) {
    out.emplace_back(prefix + name, PthValue::tensor(t.contiguous()));
  };
  const at::Tensor& img = sample.img;  // [N, 3, H, W]
  add("img_s8", img.slice(2, 0, img.size(2), 8).slice(3, 0, img.size(3), 8));
  at::Tensor mean, std, min, max;
  image_statistics(img, mean, std, min, max);
  add("img_mean", mean);
  add("img_std", std);
  add("img_min", min);
  add("img_max", max);
  add("img_full_shape", at::tensor(img.sizes().vec(), at::kLong));
  add("lidar2img", sample.lidar2img);
  add("img_shape", shapes_tensor(sample.meta.img_shape));
  add("pad_shape", shapes_tensor(sample.meta.pad_shape));
  add("scale_factor", at::tensor(std::vector<float>(sample.meta.scale_factor.begin(),
                                                    sample.meta.scale_factor.end())));
  add("can_bus", sample.can_bus);
  if (sample.has_gt()) {
    add("gt_lc", sample.gt_lc);
    add("gt_lc_labels", sample.gt_lc_labels);
    add("gt_te", sample.gt_te);
    add("gt_te_labels", sample.gt_te_labels);
    add("gt_topology_lclc", sample.gt_topology_lclc);
    add("gt_topology_lcte", sample.gt_topology_lcte);
    for (const auto& [key, tensor] : {std::pair{"gt_lane_left_type", &sample.gt_lane_left_type},
                                      std::pair{"gt_lane_right_type", &sample.gt_lane_right_type},
                                      std::pair{"gt_instance_masks", &sample.gt_instance_masks},
                                      std::pair{"gt_areas", &sample.gt_areas},
                                      std::pair{"gt_area_labels", &sample.gt_area_labels}}) {
      if (tensor->defined()) add(key, *tensor);
    }
  }
}

void append_sample_order(const std::vector<FrameKey>& keys, const std::string& split,
                         PthDictItems& out) {
  at::Tensor order = at::empty({static_cast<int64_t>(keys.size()), 2}, at::kLong);
  int64_t* p = order.data_ptr<int64_t>();
  for (const FrameKey& key : keys) {
    *p++ = as_number(key.segment_id, key);
    *p++ = as_number(key.timestamp, key);
  }
  out.emplace_back(split + ".sample_order", PthValue::tensor(order));
}

}  // namespace olv2
