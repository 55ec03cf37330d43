#include "olv2/data/transforms/load_multiview_images.h"

#include "olv2/data/image_io.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> LoadMultiViewImages::from_config(const ConfigNode& node) {
  LoadMultiViewImagesOptions options;
  options.to_float32 = node.get<bool>("to_float32", options.to_float32);
  options.color_type = node.get<std::string>("color_type", options.color_type);
  return std::make_shared<LoadMultiViewImages>(options);
}

Schema LoadMultiViewImages::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .optional("to_float32", Schema::boolean())
      .optional("color_type", Schema::string().choices({"unchanged"}));
}

void LoadMultiViewImages::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  data.images.clear();
  data.img_shape.clear();
  for (const std::string& path : data.img_paths) {
    cv::Mat image = decode_image(path);
    if (image.channels() != 3) {
      throw input_error("image " + path + ": expected a 3-channel colour image, got " +
                        std::to_string(image.channels()) + " channel(s)");
    }
    data.img_shape.push_back({image.rows, image.cols, image.channels()});
    data.images.push_back(std::move(image));
  }
  data.ori_shape = data.img_shape;
  data.images_float = false;
  data.images_rgb = false;
  if (!options_.to_float32) return;
  // The conversion itself is deferred: the next float consumer performs it
  // (fused when it is the normalisation), which gives the same values as
  // converting here.
}

}  // namespace olv2
