// Decoding PNG and JPEG files (image_decode.h).
//
// libpng and libjpeg report errors by calling back, and their callbacks here
// longjmp to a setjmp in the function that made the library call. Those
// functions (PngHeader, PngRows, JpegHeader, JpegRows) construct no C++
// object, so a longjmp out of the library skips no destructor; what they
// learn goes through plain structs, and the readers' C state is destroyed by
// the RAII holders of their callers.
#include "engine/data/image_decode.h"

// clang-format off: jpeglib.h needs <cstdio> first.
#include <jerror.h>
#include <jpeglib.h>
#include <png.h>
#include <csetjmp>
#include <cstdio>
// clang-format on

#include <cctype>
#include <cstring>
#include <memory>
#include <optional>

#include "engine/base/checked_math.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::train::internal {
namespace {

// Refuses, before anything is allocated, an image the limits or the
// model's size do not allow, or a layout the decoder should not give.
absl::Status CheckHeader(const std::string& path, const ImageHeader& h,
                         const ImageFolderSpec& spec) {
  if ((h.channels != 1 && h.channels != 3) ||
      (h.depth_bytes != 1 && h.depth_bytes != 2) || h.width <= 0 ||
      h.height <= 0) {
    return absl::InvalidArgumentError(
        StrCat(path, ": unsupported pixel layout (", h.channels,
               " channels of ", 8 * h.depth_bytes, " bits)"));
  }
  const std::optional<int64_t> pixels = CheckedMul(h.width, h.height);
  const std::optional<int64_t> floats =
      pixels ? CheckedMul(*pixels, spec.channels * 4) : std::nullopt;
  const std::optional<int64_t> raw =
      CheckedMul(h.height, static_cast<int64_t>(h.row_bytes));
  if (!floats || !raw || *floats > spec.max_bytes || *raw > spec.max_bytes) {
    return absl::InvalidArgumentError(
        StrCat(path, ": declares a ", h.width, "x", h.height,
               " image, whose decoding takes more than the dataset limit of ",
               spec.max_bytes, " bytes"));
  }
  if (!spec.resize && (h.width != spec.width || h.height != spec.height)) {
    return absl::InvalidArgumentError(StrCat(
        path, ": the image is ", h.width, "x", h.height,
        " (width x height) but the model takes ", spec.width, "x", spec.height,
        "; resize the images or ask for resizing (--resize)"));
  }
  return absl::OkStatus();
}

absl::Status Corrupt(const std::string& path, const char* format,
                     const char* why) {
  return absl::InvalidArgumentError(
      StrCat(path, ": not a valid ", format, " file (", why, ")"));
}

// ---- PNG (libpng, read from memory) ----

struct PngReader {
  png_structp png = nullptr;
  png_infop info = nullptr;
  const unsigned char* data = nullptr;
  size_t size = 0, offset = 0;
  char error[256] = "unknown error";
  ~PngReader() {
    if (png != nullptr) {
      png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    }
  }
};

[[noreturn]] void PngError(png_structp png, png_const_charp message) {
  PngReader* r = static_cast<PngReader*>(png_get_error_ptr(png));
  std::snprintf(r->error, sizeof r->error, "%s", message);
  png_longjmp(png, 1);
}

void PngWarning(png_structp, png_const_charp) {}  // libpng goes on

void PngRead(png_structp png, png_bytep out, size_t n) {
  PngReader* r = static_cast<PngReader*>(png_get_io_ptr(png));
  if (r->size - r->offset < n) png_error(png, "the file is truncated");
  std::memcpy(out, r->data + r->offset, n);
  r->offset += n;
}

// Reads the header and sets the transforms: palette to RGB, low-bit gray
// to 8 bits, alpha (and tRNS) dropped, interlacing undone.
bool PngHeader(PngReader* r, ImageHeader* out) {
  if (setjmp(png_jmpbuf(r->png))) return false;
  png_set_read_fn(r->png, r, PngRead);
  png_read_info(r->png, r->info);
  const png_byte color = png_get_color_type(r->png, r->info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r->png);
  if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(r->png, r->info) < 8) {
    png_set_expand_gray_1_2_4_to_8(r->png);
  }
  png_set_strip_alpha(r->png);
  png_set_interlace_handling(r->png);
  png_read_update_info(r->png, r->info);
  out->width = png_get_image_width(r->png, r->info);
  out->height = png_get_image_height(r->png, r->info);
  out->channels = png_get_channels(r->png, r->info);
  out->depth_bytes = png_get_bit_depth(r->png, r->info) / 8;
  out->row_bytes = png_get_rowbytes(r->png, r->info);
  return true;
}

bool PngRows(PngReader* r, png_bytepp rows) {
  if (setjmp(png_jmpbuf(r->png))) return false;
  png_read_image(r->png, rows);
  return true;
}

absl::StatusOr<Image> DecodePng(const std::string& path,
                                const std::string& bytes,
                                const ImageFolderSpec& spec) {
  PngReader r;
  r.data = reinterpret_cast<const unsigned char*>(bytes.data());
  r.size = bytes.size();
  r.png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, PngError, PngWarning);
  if (r.png != nullptr) r.info = png_create_info_struct(r.png);
  if (r.info == nullptr) return Corrupt(path, "PNG", "libpng cannot start");
  Image image;
  if (!PngHeader(&r, &image.header)) return Corrupt(path, "PNG", r.error);
  RETURN_IF_ERROR(CheckHeader(path, image.header, spec));
  image.pixels.resize(image.header.height * image.header.row_bytes);
  std::vector<png_bytep> rows(image.header.height);
  for (size_t y = 0; y < rows.size(); ++y) {
    rows[y] = image.pixels.data() + y * image.header.row_bytes;
  }
  if (!PngRows(&r, rows.data())) return Corrupt(path, "PNG", r.error);
  return image;
}

// ---- JPEG (libjpeg-turbo, read from memory) ----

struct JpegReader {
  jpeg_decompress_struct info;
  jpeg_error_mgr errors;
  std::jmp_buf jump;
  char error[JMSG_LENGTH_MAX] = "unknown error";
  bool created = false;
  ~JpegReader() {
    if (created) jpeg_destroy_decompress(&info);
  }
};

[[noreturn]] void JpegErrorExit(j_common_ptr c) {
  JpegReader* r = static_cast<JpegReader*>(c->client_data);
  (*c->err->format_message)(c, r->error);
  std::longjmp(r->jump, 1);
}

// Warnings are not printed; a file that ends early is an error (libjpeg
// would fill the rest gray), the others (extraneous bytes, ...) are not.
void JpegMessage(j_common_ptr c, int level) {
  if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF) JpegErrorExit(c);
}

// Reads the header and asks for gray (a gray file) or RGB samples.
bool JpegHeader(JpegReader* r, const unsigned char* data, size_t size,
                ImageHeader* out) {
  if (setjmp(r->jump)) return false;
  jpeg_create_decompress(&r->info);
  r->created = true;
  jpeg_mem_src(&r->info, data, static_cast<unsigned long>(size));
  jpeg_read_header(&r->info, TRUE);
  r->info.out_color_space =
      r->info.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_calc_output_dimensions(&r->info);
  out->width = r->info.output_width;
  out->height = r->info.output_height;
  out->channels = r->info.output_components;
  out->depth_bytes = 1;
  out->row_bytes =
      static_cast<size_t>(r->info.output_width) * r->info.output_components;
  return true;
}

bool JpegRows(JpegReader* r, unsigned char* pixels, size_t row_bytes) {
  if (setjmp(r->jump)) return false;
  jpeg_start_decompress(&r->info);
  while (r->info.output_scanline < r->info.output_height) {
    JSAMPROW row = pixels + r->info.output_scanline * row_bytes;
    jpeg_read_scanlines(&r->info, &row, 1);
  }
  jpeg_finish_decompress(&r->info);
  return true;
}

absl::StatusOr<Image> DecodeJpeg(const std::string& path,
                                 const std::string& bytes,
                                 const ImageFolderSpec& spec) {
  JpegReader r;
  r.info.err = jpeg_std_error(&r.errors);
  r.errors.error_exit = JpegErrorExit;
  r.errors.emit_message = JpegMessage;
  r.info.client_data = &r;
  Image image;
  if (!JpegHeader(&r, reinterpret_cast<const unsigned char*>(bytes.data()),
                  bytes.size(), &image.header)) {
    return Corrupt(path, "JPEG", r.error);
  }
  RETURN_IF_ERROR(CheckHeader(path, image.header, spec));
  image.pixels.resize(image.header.height * image.header.row_bytes);
  if (!JpegRows(&r, image.pixels.data(), image.header.row_bytes)) {
    return Corrupt(path, "JPEG", r.error);
  }
  return image;
}

}  // namespace

// By content (a PNG's signature, a JPEG's start of image), else by name.
absl::StatusOr<Image> Decode(const std::string& path, const std::string& bytes,
                             const ImageFolderSpec& spec) {
  const bool png =
      bytes.size() >= 8 &&
      png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) == 0;
  const bool jpeg = bytes.size() >= 3 && bytes[0] == '\xff' &&
                    bytes[1] == '\xd8' && bytes[2] == '\xff';
  std::string lower = path;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  if (png || (!jpeg && lower.ends_with(".png"))) {
    return DecodePng(path, bytes, spec);
  }
  return DecodeJpeg(path, bytes, spec);
}

}  // namespace webnnm::train::internal
