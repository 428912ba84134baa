#include "client/tensorboard.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>

namespace webnnm::client {
namespace {

// Protocol-buffer wire format, the few pieces an Event needs.
void Varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void Tag(std::string& out, int field, int wire_type) {
  Varint(out,
         static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type));
}

template <typename T>
void Fixed(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));  // little-endian hosts only (x86, ARM)
  out.append(bytes, sizeof(T));
}

void Bytes(std::string& out, int field, std::string_view data) {
  Tag(out, field, 2);
  Varint(out, data.size());
  out.append(data);
}

std::string EventHead(double wall_time, int64_t step) {
  std::string event;
  Tag(event, 1, 1);  // wall_time: double
  Fixed(event, wall_time);
  if (step != 0) {
    Tag(event, 2, 0);  // step: int64
    Varint(event, static_cast<uint64_t>(step));
  }
  return event;
}

const std::array<uint32_t, 256>& Table() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) crc = Table()[(crc ^ c) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

uint32_t MaskedCrc32c(std::string_view data) {
  const uint32_t crc = Crc32c(data);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string EventRecord(std::string_view data) {
  std::string length;
  Fixed(length, static_cast<uint64_t>(data.size()));
  std::string record = length;
  Fixed(record, MaskedCrc32c(length));
  record.append(data);
  Fixed(record, MaskedCrc32c(data));
  return record;
}

std::string FileVersionEvent(double wall_time) {
  std::string event = EventHead(wall_time, 0);
  Bytes(event, 3, "brain.Event:2");
  return event;
}

std::string ScalarEvent(double wall_time, int64_t step, std::string_view tag,
                        float value) {
  std::string summary_value;
  Bytes(summary_value, 1, tag);
  Tag(summary_value, 2, 5);  // simple_value: float
  Fixed(summary_value, value);
  std::string summary;
  Bytes(summary, 1, summary_value);
  std::string event = EventHead(wall_time, step);
  Bytes(event, 5, summary);
  return event;
}

std::string EventFileName(std::string_view suffix) {
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  return "events.out.tfevents." + std::to_string(seconds) + "." + host +
         std::string(suffix);
}

}  // namespace webnnm::client
