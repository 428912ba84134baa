// Image-folder datasets: PNG (gray, RGB, RGBA, 1- and 16-bit, palette,
// interlaced) and JPEG files written here with libpng and libjpeg, read
// exactly (PNG) or within JPEG's loss; channels converted both ways, both
// sample layouts, class and file order, sizes and --resize, corrupt files,
// image bombs and bad folders refused by name; the spec read off a model's
// input, ReadDataFor's dispatch and split, and a short training run.
#include "engine/data/image_folder.h"
#include "engine/data/npz_write.h"

// clang-format off: jpeglib.h needs <cstdio> first.
#include <jpeglib.h>
#include <png.h>
#include <zlib.h>
#include <csetjmp>
#include <cstdio>
// clang-format on

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/data_source.h"
#include "engine/train/trainer.h"

namespace webnnm::train {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// PNG rows of `samples` (interleaved, row-major) packed at `depth` bits.
std::vector<std::vector<png_byte>> PngRows(int width, int height, int channels,
                                           int depth,
                                           const std::vector<int>& samples) {
  std::vector<std::vector<png_byte>> rows(height);
  const int per_row = width * channels;
  for (int y = 0; y < height; ++y) {
    rows[y].assign((per_row * depth + 7) / 8, 0);
    for (int i = 0; i < per_row; ++i) {
      const int v = samples[y * per_row + i];
      if (depth == 16) {
        rows[y][2 * i] = static_cast<png_byte>(v >> 8);
        rows[y][2 * i + 1] = static_cast<png_byte>(v & 0xff);
      } else if (depth == 8) {
        rows[y][i] = static_cast<png_byte>(v);
      } else {
        const int bit = i * depth;
        rows[y][bit / 8] |= static_cast<png_byte>(v << (8 - depth - bit % 8));
      }
    }
  }
  return rows;
}

// Writes a PNG; false when libpng fails (it longjmps here).
bool WritePng(const fs::path& path, int width, int height, int color, int depth,
              const std::vector<int>& samples,
              const std::vector<png_color>& palette = {},
              bool interlaced = false) {
  const int channels = color == PNG_COLOR_TYPE_GRAY         ? 1
                       : color == PNG_COLOR_TYPE_PALETTE    ? 1
                       : color == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
                       : color == PNG_COLOR_TYPE_RGB        ? 3
                                                            : 4;
  std::vector<std::vector<png_byte>> rows =
      PngRows(width, height, channels, depth, samples);
  std::vector<png_bytep> pointers;
  for (auto& r : rows) pointers.push_back(r.data());
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return false;
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, width, height, depth, color,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!palette.empty()) {
    png_set_PLTE(png, info, palette.data(), static_cast<int>(palette.size()));
  }
  png_write_info(png, info);
  if (interlaced) png_set_interlace_handling(png);
  png_write_image(png, pointers.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return std::fclose(file) == 0;
}

// Writes a JPEG of 1 (gray) or 3 (RGB) components at quality 100.
bool WriteJpeg(const fs::path& path, int width, int height, int components,
               const std::vector<unsigned char>& pixels) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return false;
  jpeg_compress_struct c;
  jpeg_error_mgr errors;
  c.err = jpeg_std_error(&errors);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, file);
  c.image_width = width;
  c.image_height = height;
  c.input_components = components;
  c.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 100, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<unsigned char*>(pixels.data()) +
                   c.next_scanline * width * components;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  return std::fclose(file) == 0;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::vector<float> Sample(const Dataset& d, int64_t i) {
  return std::vector<float>(d.features(i), d.features(i) + d.width());
}

std::vector<int64_t> Labels(const Dataset& d) {
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < d.count(); ++i) labels.push_back(d.label(i));
  return labels;
}

ImageFolderSpec Gray(int64_t height, int64_t width) {
  return {.channels = 1, .height = height, .width = width};
}

class ImageFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("webnnm-images-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // dir_/CLASS/NAME, the class folder made.
  fs::path File(const std::string& cls, const std::string& name) {
    fs::create_directories(dir_ / cls);
    return dir_ / cls / name;
  }
  // A 2x2 8-bit gray PNG of `v`.
  void Gray2x2(const std::string& cls, const std::string& name,
               const std::vector<int>& v) {
    ASSERT_TRUE(WritePng(File(cls, name), 2, 2, PNG_COLOR_TYPE_GRAY, 8, v));
  }

  fs::path dir_;
};

TEST_F(ImageFolderTest, GrayPngsLoadExactly) {
  Gray2x2("a", "1.png", {0, 51, 102, 255});
  Gray2x2("b", "1.png", {1, 2, 3, 4});
  absl::StatusOr<Dataset> d = LoadImageFolder(dir_.string(), Gray(2, 2));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count(), 2);
  EXPECT_EQ(d->width(), 4);
  EXPECT_TRUE(d->classification());
  EXPECT_THAT(d->classes(), ElementsAre("a", "b"));
  EXPECT_THAT(Labels(*d), ElementsAre(0, 1));
  EXPECT_EQ(d->source(), dir_.string());
  EXPECT_THAT(Sample(*d, 0),
              ElementsAre(0.0f, 51 / 255.0f, 102 / 255.0f, 1.0f));
  EXPECT_THAT(Sample(*d, 1),
              ElementsAre(1 / 255.0f, 2 / 255.0f, 3 / 255.0f, 4 / 255.0f));
}

TEST_F(ImageFolderTest, EveryPngKindInBothChannelCountsAndLayouts) {
  // 2x1 images: pixel 0 and pixel 1.
  const std::vector<int> rgb = {255, 0, 10, 20, 40, 60};
  ASSERT_TRUE(WritePng(File("a", "rgb.png"), 2, 1, PNG_COLOR_TYPE_RGB, 8, rgb));
  ASSERT_TRUE(WritePng(File("a", "rgba.png"), 2, 1, PNG_COLOR_TYPE_RGB_ALPHA, 8,
                       {255, 0, 10, 7, 20, 40, 60, 200}));
  ASSERT_TRUE(WritePng(File("a", "sixteen.png"), 2, 1, PNG_COLOR_TYPE_GRAY, 16,
                       {0, 65535 / 5}));
  ASSERT_TRUE(WritePng(File("b", "palette.png"), 2, 1, PNG_COLOR_TYPE_PALETTE,
                       8, {1, 0}, {{1, 2, 3}, {255, 0, 10}}));
  ASSERT_TRUE(
      WritePng(File("b", "one-bit.png"), 2, 1, PNG_COLOR_TYPE_GRAY, 1, {1, 0}));
  ASSERT_TRUE(WritePng(File("b", "two.png"), 2, 1, PNG_COLOR_TYPE_GRAY_ALPHA, 8,
                       {9, 255, 90, 0}, {}, /*interlaced=*/true));
  auto f = [](int v) { return v / 255.0f; };
  auto luma = [](double r, double g, double b) {
    return static_cast<float>((0.299 * r + 0.587 * g + 0.114 * b) / 255);
  };

  // RGB, channels first: C, H, W.
  absl::StatusOr<Dataset> d =
      LoadImageFolder(dir_.string(), {.channels = 3, .height = 1, .width = 2});
  ASSERT_TRUE(d.ok()) << d.status();
  // a: rgb, rgba, sixteen; b: one-bit, palette, two (sorted names).
  ASSERT_EQ(d->count(), 6);
  EXPECT_THAT(Labels(*d), ElementsAre(0, 0, 0, 1, 1, 1));
  EXPECT_THAT(Sample(*d, 0),
              ElementsAre(f(255), f(20), f(0), f(40), f(10), f(60)));
  EXPECT_EQ(Sample(*d, 1), Sample(*d, 0));  // alpha dropped
  const float fifth = (65535 / 5) / 65535.0f;
  EXPECT_THAT(Sample(*d, 2), ElementsAre(0, fifth, 0, fifth, 0, fifth));
  EXPECT_THAT(Sample(*d, 3), ElementsAre(1, 0, 1, 0, 1, 0));
  EXPECT_THAT(Sample(*d, 4),
              ElementsAre(f(255), f(1), f(0), f(2), f(10), f(3)));
  EXPECT_THAT(Sample(*d, 5),
              ElementsAre(f(9), f(90), f(9), f(90), f(9), f(90)));

  // RGB, channels last: H, W, C.
  d = LoadImageFolder(
      dir_.string(),
      {.channels = 3, .height = 1, .width = 2, .channels_last = true});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Sample(*d, 0),
              ElementsAre(f(255), f(0), f(10), f(20), f(40), f(60)));

  // Gray: colour by the luma weights.
  d = LoadImageFolder(dir_.string(), Gray(1, 2));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Sample(*d, 0), ElementsAre(luma(255, 0, 10), luma(20, 40, 60)));
  EXPECT_EQ(Sample(*d, 1), Sample(*d, 0));
  EXPECT_THAT(Sample(*d, 2), ElementsAre(0, fifth));
  EXPECT_THAT(Sample(*d, 3), ElementsAre(1, 0));
  EXPECT_THAT(Sample(*d, 4), ElementsAre(luma(255, 0, 10), luma(1, 2, 3)));
  EXPECT_THAT(Sample(*d, 5), ElementsAre(f(9), f(90)));
}

TEST_F(ImageFolderTest, JpegsLoadWithinTheirLoss) {
  std::vector<unsigned char> gray, rgb;
  for (int i = 0; i < 64; ++i)
    gray.push_back(static_cast<unsigned char>(40 + i));
  for (int i = 0; i < 64; ++i) rgb.insert(rgb.end(), {200, 100, 50});
  ASSERT_TRUE(WriteJpeg(File("gray", "g.jpg"), 8, 8, 1, gray));
  ASSERT_TRUE(WriteJpeg(File("rgb", "c.JPEG"), 8, 8, 3, rgb));
  absl::StatusOr<Dataset> d = LoadImageFolder(dir_.string(), Gray(8, 8));
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->count(), 2);
  const float luma = (0.299 * 200 + 0.587 * 100 + 0.114 * 50) / 255;
  for (int i = 0; i < 64; ++i) {
    EXPECT_NEAR(d->features(0)[i], (40 + i) / 255.0, 3 / 255.0) << i;
    EXPECT_NEAR(d->features(1)[i], luma, 3 / 255.0) << i;
  }
  d = LoadImageFolder(dir_.string(), {.channels = 3, .height = 8, .width = 8});
  ASSERT_TRUE(d.ok()) << d.status();
  for (int i = 0; i < 64; ++i) {
    EXPECT_NEAR(d->features(0)[i], d->features(0)[64 + i], 1e-6);  // gray
    EXPECT_NEAR(d->features(1)[i], 200 / 255.0, 3 / 255.0);        // R plane
    EXPECT_NEAR(d->features(1)[64 + i], 100 / 255.0, 3 / 255.0);   // G
    EXPECT_NEAR(d->features(1)[128 + i], 50 / 255.0, 3 / 255.0);   // B
  }
}

TEST_F(ImageFolderTest, ClassesAndFilesInSortedOrderOthersIgnored) {
  Gray2x2("zebra", "z.png", {3, 3, 3, 3});
  Gray2x2("apple", "b.png", {2, 2, 2, 2});
  Gray2x2("apple", "a.PNG", {1, 1, 1, 1});
  Gray2x2("apple", ".hidden.png", {9, 9, 9, 9});
  Gray2x2("mango", "m.png", {4, 4, 4, 4});
  std::ofstream(File("apple", "notes.txt")) << "not an image";
  std::ofstream(File("mango", "labels.csv")) << "a,b\n";
  fs::create_directories(dir_ / ".cache");
  absl::StatusOr<Dataset> d = LoadImageFolder(dir_.string(), Gray(2, 2));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->classes(), ElementsAre("apple", "mango", "zebra"));
  EXPECT_THAT(Labels(*d), ElementsAre(0, 0, 1, 2));
  std::vector<float> first;
  for (int64_t i = 0; i < d->count(); ++i) first.push_back(d->features(i)[0]);
  EXPECT_THAT(first,
              ElementsAre(1 / 255.0f, 2 / 255.0f, 4 / 255.0f, 3 / 255.0f));
}

TEST_F(ImageFolderTest, AnotherSizeIsRefusedUnlessResized) {
  Gray2x2("a", "ok.png", {0, 0, 0, 0});
  ASSERT_TRUE(
      WritePng(File("b", "wide.png"), 2, 1, PNG_COLOR_TYPE_GRAY, 8, {0, 255}));
  absl::StatusOr<Dataset> d = LoadImageFolder(dir_.string(), Gray(2, 4));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  // The first file in order is the 2x2 one.
  EXPECT_THAT(d.status().message(),
              HasSubstr((dir_ / "a" / "ok.png").string()));
  EXPECT_THAT(d.status().message(), HasSubstr("is 2x2 (width x height)"));
  EXPECT_THAT(d.status().message(), HasSubstr("the model takes 4x2"));

  // Resized bilinearly with half-pixel centres: the 2x1 row [0, 1] becomes
  // [0, 0.25, 0.75, 1] at width 4, each row alike.
  ImageFolderSpec spec = Gray(2, 4);
  spec.resize = true;
  d = LoadImageFolder(dir_.string(), spec);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->width(), 8);
  EXPECT_THAT(Sample(*d, 0), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0));
  EXPECT_THAT(Sample(*d, 1),
              ElementsAre(0, 0.25f, 0.75f, 1, 0, 0.25f, 0.75f, 1));
  // Shrinking: 4x4 to 2x2 averages each 2x2 block's centre.
  ASSERT_TRUE(WritePng(
      File("c", "big.png"), 4, 4, PNG_COLOR_TYPE_GRAY, 8,
      {0, 0, 255, 255, 0, 0, 255, 255, 51, 51, 102, 102, 51, 51, 102, 102}));
  d = LoadImageFolder(dir_.string(),
                      {.channels = 1, .height = 2, .width = 2, .resize = true});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Sample(*d, 2), ElementsAre(0, 1, 0.2f, 0.4f));
}

TEST_F(ImageFolderTest, CorruptFilesAreRefusedByName) {
  std::vector<int> noise;
  for (int i = 0; i < 256; ++i) noise.push_back((i * 97) % 256);
  ASSERT_TRUE(
      WritePng(File("a", "whole.png"), 16, 16, PNG_COLOR_TYPE_GRAY, 8, noise));
  const std::string png = ReadBytes(dir_ / "a" / "whole.png");
  std::vector<unsigned char> pixels(256 * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = (i * 31) % 256;
  ASSERT_TRUE(WriteJpeg(File("b", "whole.jpg"), 16, 16, 3, pixels));
  const std::string jpeg = ReadBytes(dir_ / "b" / "whole.jpg");
  const ImageFolderSpec spec = {.channels = 3, .height = 16, .width = 16};
  ASSERT_TRUE(LoadImageFolder(dir_.string(), spec).ok());

  struct Case {
    std::string name, bytes, why;
  };
  const std::vector<Case> cases = {
      {"truncated.png", png.substr(0, png.size() / 2), "not a valid PNG"},
      {"header-only.png", png.substr(0, 20), "not a valid PNG"},
      {"garbage.jpg", "this is no image at all", "not a valid JPEG"},
      {"truncated.jpg", jpeg.substr(0, jpeg.size() / 2), "not a valid JPEG"},
      {"empty.jpeg", "", "not a valid JPEG"},
      {"bad-crc.png", png.substr(0, 30) + "\x01" + png.substr(31),
       "not a valid PNG"},
  };
  for (const Case& c : cases) {
    const fs::path bad = File("a", "0-" + c.name);  // sorted first
    WriteBytes(bad, c.bytes);
    absl::StatusOr<Dataset> d = LoadImageFolder(dir_.string(), spec);
    ASSERT_FALSE(d.ok()) << c.name;
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(d.status().message(), HasSubstr(bad.string())) << c.name;
    EXPECT_THAT(d.status().message(), HasSubstr(c.why)) << c.name;
    fs::remove(bad);
  }
}

// A PNG whose header declares width x height (and whose data is 1x1).
std::string Bomb(const std::string& png, uint32_t width, uint32_t height) {
  std::string out = png;
  for (int i = 0; i < 4; ++i) {
    out[16 + i] = static_cast<char>(width >> (24 - 8 * i));
    out[20 + i] = static_cast<char>(height >> (24 - 8 * i));
  }
  const uLong crc =
      crc32(0, reinterpret_cast<const Bytef*>(out.data() + 12), 17);
  for (int i = 0; i < 4; ++i)
    out[29 + i] = static_cast<char>(crc >> (24 - 8 * i));
  return out;
}

TEST_F(ImageFolderTest, ImageBombsAreRefusedBeforeDecoding) {
  Gray2x2("a", "ok.png", {0, 0, 0, 0});
  ASSERT_TRUE(
      WritePng(File("b", "one.png"), 1, 1, PNG_COLOR_TYPE_GRAY, 8, {7}));
  const std::string bomb =
      Bomb(ReadBytes(dir_ / "b" / "one.png"), 100000, 100000);
  WriteBytes(dir_ / "b" / "one.png", bomb);
  for (bool resize : {false, true}) {
    ImageFolderSpec spec = Gray(2, 2);
    spec.resize = resize;
    absl::StatusOr<Dataset> d = LoadImageFolder(dir_.string(), spec);
    ASSERT_FALSE(d.ok());
    EXPECT_THAT(d.status().message(),
                HasSubstr((dir_ / "b" / "one.png").string()));
    EXPECT_THAT(d.status().message(),
                HasSubstr("declares a 100000x100000 image, whose decoding "
                          "takes more than the dataset limit of 4294967296"));
  }
  // The samples together are limited too: 2 x 2x2 float32 are 32 bytes.
  Gray2x2("b", "one.png", {0, 0, 0, 0});
  ImageFolderSpec spec = Gray(2, 2);
  spec.max_bytes = 31;
  absl::StatusOr<Dataset> d = LoadImageFolder(dir_.string(), spec);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(),
              HasSubstr("2 images of 1x2x2 float32 values take more than the "
                        "dataset limit of 31 bytes"));
  spec.max_bytes = 4096;
  EXPECT_TRUE(LoadImageFolder(dir_.string(), spec).ok());
}

TEST_F(ImageFolderTest, FoldersThatAreNoImageFolderAreRefused) {
  const std::string dir = dir_.string();
  absl::StatusOr<Dataset> d = LoadImageFolder(dir, Gray(2, 2));
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(),
              HasSubstr(dir + ": no class subfolders; an image folder holds "
                              "one subfolder per class (at least two)"));
  Gray2x2("only", "1.png", {0, 0, 0, 0});
  d = LoadImageFolder(dir, Gray(2, 2));
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("one class subfolder ('only')"));
  std::ofstream(File("text", "a.txt")) << "x";
  d = LoadImageFolder(dir, Gray(2, 2));
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(
      d.status().message(),
      HasSubstr((dir_ / "text").string() + ": no .png, .jpg or .jpeg files"));
  d = LoadImageFolder((dir_ / "missing").string(), Gray(2, 2));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ImageFolderTest, ImageFoldersAreToldFromIdxFolders) {
  EXPECT_FALSE(IsImageFolder(dir_.string()));  // empty
  Gray2x2("a", "1.png", {0, 0, 0, 0});
  EXPECT_TRUE(IsImageFolder(dir_.string()));
  EXPECT_FALSE(IsImageFolder((dir_ / "a" / "1.png").string()));
  EXPECT_FALSE(IsImageFolder((dir_ / "missing").string()));
  std::ofstream(dir_ / "train-images-idx3-ubyte.gz") << "";
  EXPECT_FALSE(IsImageFolder(dir_.string()));
}

// The model input's type, from model-language text.
ir::TensorType InputType(const std::string& shape) {
  CheckResult check = CheckModel("m.wnm", "model:input " + shape + R"(;
model:output shape=[2];
model:layers reshape(newShape=[2]);
)");
  EXPECT_TRUE(check.ok) << check.rendered;
  if (!check.ok) return {};
  const dag::Dag& dag = *check.dag;
  return dag.graph.value(dag.graph.node(dag.inputs[0].node).outputs[0]).type;
}

TEST(ImageFolderSpec, FollowsTheModelInputsLayout) {
  absl::StatusOr<ImageFolderSpec> s =
      ImageFolderSpecFor(InputType("shape={channels: 1, height: 1, width: 2}"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->channels, 1);
  EXPECT_EQ(s->height, 1);
  EXPECT_EQ(s->width, 2);
  EXPECT_FALSE(s->channels_last);
  s = ImageFolderSpecFor(InputType("shape={height: 1, width: 2, channels: 1}"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->channels_last);
  EXPECT_EQ(s->height, 1);
  EXPECT_EQ(s->width, 2);
  s = ImageFolderSpecFor(InputType("shape=[1, 2, 1]"));  // unnamed: C, H, W
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->channels_last);
  EXPECT_EQ(s->channels, 1);
  EXPECT_EQ(s->height, 2);
  EXPECT_EQ(s->width, 1);
  for (const char* bad : {"shape=[2]", "shape={height: 1, width: 2}",
                          "shape={channels: 2, height: 1, width: 1}",
                          "shape={height: 1, channels: 1, width: 2}",
                          "int32 shape={channels: 1, height: 1, width: 2}"}) {
    s = ImageFolderSpecFor(InputType(bad));
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(s.status().message(),
                HasSubstr("an image folder feeds an input of {channels, "
                          "height, width}"));
  }
}

// 8x8 gray images: class `left` bright on the left half, `right` on the
// right, with some noise.
void TwoHalves(const fs::path& dir, int per_class) {
  for (int k = 0; k < 2; ++k) {
    const std::string cls = k == 0 ? "left" : "right";
    fs::create_directories(dir / cls);
    for (int n = 0; n < per_class; ++n) {
      std::vector<int> v;
      for (int y = 0; y < 8; ++y) {
        for (int x = 0; x < 8; ++x) {
          const bool bright = (x < 4) == (k == 0);
          const int noise = (n * 37 + y * 11 + x * 5) % 60;
          v.push_back(bright ? 195 + noise : noise);
        }
      }
      ASSERT_TRUE(WritePng(dir / cls / ("img" + std::to_string(n) + ".png"), 8,
                           8, PNG_COLOR_TYPE_GRAY, 8, v));
    }
  }
}

constexpr char kHalves[] = R"(
model:name halves;
model:input shape={channels: 1, height: 8, width: 8};
model:output shape=[2];
model:layers
    reshape(newShape=[64]),
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)";

TEST_F(ImageFolderTest, AModelReadsAndTrainsOnAnImageFolder) {
  TwoHalves(dir_, 40);
  CheckResult check = CheckModel("halves.wnm", kHalves);
  ASSERT_TRUE(check.ok) << check.rendered;
  const DataSource source = {.path = dir_.string()};
  absl::StatusOr<Dataset> d = ReadDataFor(*check.dag, source);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count(), 80);
  EXPECT_EQ(d->width(), 64);
  EXPECT_THAT(d->classes(), ElementsAre("left", "right"));
  // Not a fixed test subset (as IDX's t10k): the split makes one.
  ASSERT_TRUE(SplitData(*d, source, {70, 15, 15}, 1).ok());
  EXPECT_EQ(d->subset(Subset::kTest).size(), 12u);
  EXPECT_EQ(d->subset(Subset::kValidation).size(), 12u);
  EXPECT_EQ(d->subset(Subset::kTraining).size(), 56u);

  Hyperparameters h;
  h.epochs = 30;
  h.seeds = 1;
  h.batch_size = 8;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.1;
  auto backend = backends::CreateBackend("cpu");
  ASSERT_TRUE(backend.ok()) << backend.status();
  absl::StatusOr<TrainResult> r = Train(*check.dag, *d, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->test.accuracy.has_value());
  EXPECT_GT(*r->test.accuracy, 0.9);
}

// A zipped image folder (what the daemon stores for an upload) reads as
// the folder does, whether its entries are CLASS/FILE or under one top
// folder; sizes are checked before inflating, and entries are named.
TEST_F(ImageFolderTest, AZippedImageFolderReadsAsTheFolder) {
  const fs::path folder = dir_ / "halves";
  fs::create_directories(folder);
  TwoHalves(folder, 6);
  WriteBytes(folder / "left" / "notes.txt", "ignored");
  CheckResult check = CheckModel("halves.wnm", kHalves);
  ASSERT_TRUE(check.ok) << check.rendered;
  absl::StatusOr<Dataset> plain =
      ReadDataFor(*check.dag, {.path = folder.string()});
  ASSERT_TRUE(plain.ok()) << plain.status();
  absl::StatusOr<std::string> zipped = ZipImageFolder(folder.string(), 1 << 20);
  ASSERT_TRUE(zipped.ok()) << zipped.status();
  EXPECT_EQ(*zipped, *ZipImageFolder(folder.string(), 1 << 20));  // stable
  const fs::path archive = dir_ / "halves.zip";
  WriteBytes(archive, *zipped);
  absl::StatusOr<Dataset> read =
      ReadDataFor(*check.dag, {.path = archive.string()});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->classes(), plain->classes());
  ASSERT_EQ(read->count(), plain->count());
  for (int64_t i = 0; i < read->count(); ++i) {
    EXPECT_EQ(read->label(i), plain->label(i));
    EXPECT_EQ(std::vector<float>(read->features(i), read->features(i) + 64),
              std::vector<float>(plain->features(i), plain->features(i) + 64));
  }
  // Entries under one top folder, as `zip -r halves.zip halves/` makes.
  std::vector<std::pair<std::string, std::string>> files;
  for (const char* cls : {"left", "right"}) {
    for (const auto& e : fs::directory_iterator(folder / cls)) {
      files.emplace_back(
          StrCat("halves/", cls, "/", e.path().filename().string()),
          ReadBytes(e.path()));
    }
  }
  // With what macOS and editors leave beside the images.
  files.emplace_back("halves/.DS_Store", "x");
  files.emplace_back("halves/README.txt", "notes");
  files.emplace_back("__MACOSX/halves/left/._00.png", "resource fork");
  WriteBytes(archive, *EncodeZip(files));
  read = ReadDataFor(*check.dag, {.path = archive.string()});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->count(), plain->count());
  EXPECT_EQ(read->classes(), plain->classes());
  // The limit counts declared sizes; a corrupt entry is named.
  absl::StatusOr<Dataset> big =
      ReadDataFor(*check.dag, {.path = archive.string(), .max_bytes = 100});
  EXPECT_THAT(big.status().message(), HasSubstr("bytes decompressed"));
  WriteBytes(archive, *EncodeZip({{"a/x.png", "not a png"},
                                  {"b/y.png", files[0].second}}));
  read = ReadDataFor(*check.dag, {.path = archive.string()});
  EXPECT_THAT(read.status().message(), HasSubstr("halves.zip:a/x.png"));
  WriteBytes(archive, *EncodeZip({{"a/x.png", "1"}}));
  EXPECT_THAT(
      ReadDataFor(*check.dag, {.path = archive.string()}).status().message(),
      HasSubstr("one class folder ('a')"));
  WriteBytes(archive, "not a zip");
  EXPECT_THAT(
      ReadDataFor(*check.dag, {.path = archive.string()}).status().message(),
      HasSubstr("not a zip archive"));
}

TEST_F(ImageFolderTest, ReadDataForRefusesAModelWithoutAnImageInput) {
  TwoHalves(dir_, 2);
  CheckResult check = CheckModel("flat.wnm", R"(
model:input shape=[64];
model:output shape=[2];
model:layers dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(check.ok) << check.rendered;
  absl::StatusOr<Dataset> d = ReadDataFor(*check.dag, {.path = dir_.string()});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(d.status().message(),
              HasSubstr(dir_.string() + " is an image folder, but the model "
                                        "input 'model' takes no images"));
  // --resize and the limit travel through the DataSource.
  CheckResult small = CheckModel("small.wnm", R"(
model:input shape={channels: 3, height: 4, width: 4};
model:output shape=[2];
model:layers reshape(newShape=[48]), dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(small.ok) << small.rendered;
  d = ReadDataFor(*small.dag, {.path = dir_.string()});
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("the model takes 4x4"));
  d = ReadDataFor(*small.dag, {.path = dir_.string(), .resize = true});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->width(), 48);
  d = ReadDataFor(*small.dag,
                  {.path = dir_.string(), .resize = true, .max_bytes = 100});
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("dataset limit of 100 bytes"));
}

}  // namespace
}  // namespace webnnm::train
