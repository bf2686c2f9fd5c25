#include "bifrost/sim/workload/flow_size_cdf.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/number_text.h"
#include "bifrost/sim/workload/text_file.h"
#include "text_lines.h"

namespace bifrost::sim::workload {

namespace {

// Prefixes a message about point `index`: "file:line" for a point read from a file.
std::string where(const std::string& source, std::size_t index,
                  const std::vector<std::size_t>* lines) {
  if (lines == nullptr) return fmt::format("{}: point {}", source, index + 1);
  return fmt::format("{}:{}", source, (*lines)[index]);
}

// Checks the CDF rules; `lines` maps point index to file line when the points came from a file.
void validate(const std::vector<CdfPoint>& points, const std::string& source,
              const std::vector<std::size_t>* lines) {
  if (points.size() < 2) {
    throw Error(
        "{}: a flow-size CDF needs at least two points (the first at 0%, the last at "
        "100%), found {}",
        source, points.size());
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const CdfPoint& p = points[i];
    if (p.bytes > kMaxCdfBytes) {
      throw Error("{}: size {} is above 2^53 bytes, the largest a CDF point may have",
                  where(source, i, lines), p.bytes);
    }
    if (!(p.fraction >= 0.0 && p.fraction <= 1.0)) {
      throw Error("{}: cumulative fraction {} is outside [0, 1]", where(source, i, lines),
                  p.fraction);
    }
    if (i == 0) continue;
    const CdfPoint& q = points[i - 1];
    if (p.bytes < q.bytes) {
      throw Error("{}: size {} is below the previous point's {}; sizes must not decrease",
                  where(source, i, lines), p.bytes, q.bytes);
    }
    if (p.fraction < q.fraction) {
      throw Error("{}: cumulative {:g}% is below the previous point's {:g}%; a CDF never decreases",
                  where(source, i, lines), p.fraction * 100, q.fraction * 100);
    }
    if (p == q) throw Error("{}: repeats the previous point", where(source, i, lines));
  }
  if (points.front().fraction != 0.0) {
    throw Error("{}: the first point must be at 0%, found {:g}%", where(source, 0, lines),
                points.front().fraction * 100);
  }
  if (points.back().fraction != 1.0) {
    throw Error("{}: the last point must be at 100%, found {:g}%",
                where(source, points.size() - 1, lines), points.back().fraction * 100);
  }
}

double exact_mean(const std::vector<CdfPoint>& points) {
  double mean = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const double mass = points[i].fraction - points[i - 1].fraction;
    const double middle =
        (static_cast<double>(points[i].bytes) + static_cast<double>(points[i - 1].bytes)) / 2;
    mean += mass * middle;
  }
  return mean;
}

FlowSizeCdf make_checked(std::vector<CdfPoint> points, std::string source,
                         const std::vector<std::size_t>* lines) {
  validate(points, source, lines);
  return FlowSizeCdf(std::move(points), std::move(source));
}

std::optional<double> parse_percent(std::string_view text) {
  double value = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

FlowSizeCdf::FlowSizeCdf(std::vector<CdfPoint> points, std::string source)
    : points_(std::move(points)), source_(std::move(source)) {
  validate(points_, source_, nullptr);
  mean_ = exact_mean(points_);
}

FlowSizeCdf FlowSizeCdf::constant(Bytes size) {
  if (size.count() == 0) throw Error("a constant flow size must be at least 1 byte");
  return FlowSizeCdf({{size.count(), 0.0}, {size.count(), 1.0}},
                     fmt::format("constant {} bytes", size.count()));
}

double FlowSizeCdf::quantile(double p) const {
  if (!(p >= 0.0 && p <= 1.0)) throw Error("quantile: p = {} is outside [0, 1]", p);
  if (p == 1.0) return static_cast<double>(points_.back().bytes);
  // The first point whose fraction exceeds p ends the segment holding p; it exists because the
  // last fraction is 1 > p, and it is not the first point because that one's fraction is 0.
  const auto upper = std::upper_bound(points_.begin() + 1, points_.end(), p,
                                      [](double v, const CdfPoint& pt) { return v < pt.fraction; });
  const CdfPoint& hi = *upper;
  const CdfPoint& lo = *(upper - 1);
  const double x0 = static_cast<double>(lo.bytes);
  const double x1 = static_cast<double>(hi.bytes);
  return x0 + (x1 - x0) * (p - lo.fraction) / (hi.fraction - lo.fraction);
}

Bytes FlowSizeCdf::sample(RandomStream& rng) const {
  const double size = std::round(quantile(rng.uniform()));
  return Bytes(std::max<uint64_t>(1, static_cast<uint64_t>(size)));
}

FlowSizeCdf parse_cdf_text(std::string_view text, std::string_view source) {
  const std::string name(source);
  std::vector<CdfPoint> points;
  std::vector<std::size_t> lines;
  detail::LineCursor cursor(text);
  std::string_view line;
  std::size_t number = 0;
  while (cursor.next(line, number)) {
    const std::size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    const auto fields = detail::split_fields(line);
    if (fields.empty()) continue;
    if (fields.size() != 2) {
      throw Error("{}:{}: expected two fields \"flow_size_bytes cumulative_percent\", found {}",
                  name, number, fields.size());
    }
    const auto bytes = parse_unsigned(fields[0]);
    if (!bytes) {
      throw Error("{}:{}: flow size {} is not a whole number of bytes", name, number,
                  detail::quote(fields[0]));
    }
    const auto percent = parse_percent(fields[1]);
    if (!percent || *percent < 0 || *percent > 100) {
      throw Error("{}:{}: cumulative percent {} is not a number from 0 to 100", name, number,
                  detail::quote(fields[1]));
    }
    points.push_back({*bytes, *percent / 100});
    lines.push_back(number);
  }
  return make_checked(std::move(points), name, &lines);
}

FlowSizeCdf load_cdf_file(const std::filesystem::path& path) {
  return parse_cdf_text(read_text_file(path), path.string());
}

}  // namespace bifrost::sim::workload
