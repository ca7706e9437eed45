// simdjson_top.cpp -- an anchor of `make bench` (not part of perflab, never a
// dependency): the question perflab's top-kernels answers, "which kernels take
// the most GPU time", asked of a Kineto trace by a small hand-written
// simdjson On-Demand program.  Built by bench/anchors.sh only when
// libsimdjson-dev is installed (c++ -O3 -march=native ... -lsimdjson).
//
//   simdjson_top TRACE.json
//
// Loads the file into a padded buffer (simdjson's own reader), walks
// traceEvents once, and for every event whose cat is "kernel" adds its dur
// to its name's total (raw key compares, no unescaping of keys); prints the
// ten largest totals as "calls<TAB>total_us<TAB>name" and the number of
// kernel launches.  Exit 2 on an error.
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

using namespace simdjson;

struct Sum { long calls = 0; double total = 0; };

int main(int argc, char **argv) {
  if (argc != 2) { std::fprintf(stderr, "usage: simdjson_top TRACE.json\n"); return 2; }
  padded_string json;
  if (auto err = padded_string::load(argv[1]).get(json)) { std::fprintf(stderr, "%s: %s\n", argv[1], error_message(err)); return 2; }
  ondemand::parser parser;
  std::unordered_map<std::string, Sum> sums;
  long launches = 0;
  try {
    ondemand::document doc = parser.iterate(json);
    for (auto ev : doc["traceEvents"].get_array()) {
      std::string_view cat, name;
      double dur = 0;
      bool kernel = false, has_name = false;
      for (auto field : ev.get_object()) {
        ondemand::raw_json_string k = field.key();
        if (k == "cat") { cat = field.value().get_string(); kernel = cat == "kernel"; }
        else if (k == "name") { name = field.value().get_string(); has_name = true; }
        else if (k == "dur") { dur = field.value().get_double(); }
      }
      if (kernel && has_name) {
        Sum &s = sums[std::string(name)];
        s.calls++; s.total += dur; launches++;
      }
    }
  } catch (simdjson_error &e) {
    std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
    return 2;
  }
  std::vector<std::pair<const std::string *, Sum>> v;
  v.reserve(sums.size());
  for (auto &kv : sums) v.emplace_back(&kv.first, kv.second);
  std::sort(v.begin(), v.end(), [](auto &a, auto &b) { return a.second.total > b.second.total; });
  for (size_t i = 0; i < v.size() && i < 10; i++)
    std::printf("%ld\t%.3f\t%s\n", v[i].second.calls, v[i].second.total, v[i].first->c_str());
  std::printf("launches\t%ld\n", launches);
  return 0;
}
