#include "recovery/reading/local_time.h"

#include <sys/stat.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "binlog/error.h"

namespace binrecover::recovery {
namespace {

constexpr const char* kForms =
    "'YYYY-MM-DD HH:MM:SS[.ffffff]' in the local zone (--timezone), or followed by a zone: Z, "
    "+HH:MM, -HH:MM or a name such as CET or Europe/Berlin";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads `min`..`max` digits at s[i]; advances i.
std::optional<int> digits(std::string_view s, std::size_t& i, std::size_t min, std::size_t max) {
  std::size_t n = 0;
  int v = 0;
  while (i + n < s.size() && n < max && is_digit(s[i + n])) {
    v = v * 10 + (s[i + n] - '0');
    ++n;
  }
  if (n < min) return std::nullopt;
  i += n;
  return v;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[static_cast<std::size_t>(m - 1)];
}

bool same_fields(const std::tm& a, const std::tm& b) {
  return a.tm_year == b.tm_year && a.tm_mon == b.tm_mon && a.tm_mday == b.tm_mday &&
         a.tm_hour == b.tm_hour && a.tm_min == b.tm_min && a.tm_sec == b.tm_sec;
}

// A zone name as /usr/share/zoneinfo has it: letters, digits, '_', '+', '-' and '/' between
// parts that are not '.' or '..'; the file must be a compiled zone (TZif).
bool known_zone_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '/' || name.back() == '/') return false;
  for (char c : name)
    if (!(is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '+' ||
          c == '-' || c == '/'))
      return false;
  if (name.find("..") != std::string_view::npos) return false;
  const std::string path = "/usr/share/zoneinfo/" + std::string(name);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char magic[4] = {};
  const bool ok = std::fread(magic, 1, 4, f) == 4 && std::memcmp(magic, "TZif", 4) == 0;
  std::fclose(f);
  return ok;
}

// Runs `fn` with the process's zone set to `zone`, then puts the zone back.
template <typename Fn>
auto in_zone(const std::string& zone, Fn fn) {
  const char* old = std::getenv("TZ");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ::setenv("TZ", zone.c_str(), 1);
  ::tzset();
  auto result = fn();
  if (saved)
    ::setenv("TZ", saved->c_str(), 1);
  else
    ::unsetenv("TZ");
  ::tzset();
  return result;
}

[[noreturn]] void refuse(std::string_view what, std::string_view text, const std::string& why) {
  throw Error(ErrorCode::kUsage, std::string(what) + " '" + std::string(text) + "': " + why);
}

}  // namespace

std::optional<std::time_t> local_fields_to_time(const std::tm& fields, std::string* why) {
  std::vector<std::time_t> found;
  for (int isdst : {0, 1}) {
    std::tm t = fields;
    t.tm_isdst = isdst;
    const std::time_t r = std::mktime(&t);
    std::tm back{};
    localtime_r(&r, &back);
    if (!same_fields(back, fields)) continue;
    bool seen = false;
    for (std::time_t x : found) seen = seen || x == r;
    if (!seen) found.push_back(r);
  }
  if (found.size() == 1) return found.front();
  if (why != nullptr)
    *why = found.empty()
               ? "that local time does not exist in the zone (a clock change skips it)"
               : "that local time happens twice in the zone (a clock change repeats it): add the "
                 "offset, e.g. +01:00 or +02:00";
  return std::nullopt;
}

Datetime parse_datetime(std::string_view text, std::string_view what) {
  std::size_t i = 0;
  const auto y = digits(text, i, 4, 4);
  if (!y || i >= text.size() || text[i] != '-')
    refuse(what, text, std::string("not a datetime: give ") + kForms);
  ++i;
  const auto mo = digits(text, i, 1, 2);
  if (!mo || i >= text.size() || text[i] != '-')
    refuse(what, text, std::string("not a datetime: give ") + kForms);
  ++i;
  const auto d = digits(text, i, 1, 2);
  if (!d) refuse(what, text, std::string("not a datetime: give ") + kForms);
  if (i == text.size())
    refuse(what, text,
           "a date alone is not taken (it would mean midnight): give the time too, e.g. '" +
               std::string(text) + " 00:00:00'");
  if (text[i] == 'T') {
    ++i;
  } else if (text[i] == ' ') {
    while (i < text.size() && text[i] == ' ') ++i;
  } else {
    refuse(what, text, std::string("not a datetime: give ") + kForms);
  }
  const auto h = digits(text, i, 1, 2);
  if (!h || i >= text.size() || text[i] != ':')
    refuse(what, text, std::string("the time needs hours, minutes and seconds: give ") + kForms);
  ++i;
  const auto mi = digits(text, i, 2, 2);
  if (!mi) refuse(what, text, std::string("the time needs hours and minutes: give ") + kForms);
  std::optional<int> s = 0;  // HH:MM is HH:MM:00
  const bool has_seconds = i < text.size() && text[i] == ':';
  if (has_seconds) {
    ++i;
    s = digits(text, i, 2, 2);
    if (!s) refuse(what, text, std::string("the seconds need two digits: give ") + kForms);
  }
  Datetime out;
  if (has_seconds && i < text.size() && text[i] == '.') {
    ++i;
    const std::size_t start = i;
    const auto frac = digits(text, i, 1, 6);
    if (!frac) refuse(what, text, "a '.' must be followed by 1 to 6 digits of the second");
    std::uint32_t us = static_cast<std::uint32_t>(*frac);
    for (std::size_t k = i - start; k < 6; ++k) us *= 10;
    out.micros = us;
  }
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > days_in_month(*y, *mo) || *h > 23 || *mi > 59 ||
      *s > 59)
    refuse(what, text, "no such date or time (month 1-12, a day of that month, 00:00:00-23:59:59)");
  std::tm fields{};
  fields.tm_year = *y - 1900;
  fields.tm_mon = *mo - 1;
  fields.tm_mday = *d;
  fields.tm_hour = *h;
  fields.tm_min = *mi;
  fields.tm_sec = *s;

  // The zone, if the text names one.
  std::string_view zone = text.substr(i);
  const bool spaced = !zone.empty() && zone.front() == ' ';
  while (!zone.empty() && zone.front() == ' ') zone.remove_prefix(1);
  if (zone.empty()) {
    if (spaced) refuse(what, text, "trailing spaces");
    std::string why;
    const auto t = local_fields_to_time(fields, &why);
    if (!t) refuse(what, text, why);
    out.seconds = *t;
    return out;
  }
  if (zone == "Z" || zone == "UTC" || zone == "GMT" || zone == "z") {
    out.seconds = ::timegm(&fields);
    return out;
  }
  if (zone.front() == '+' || zone.front() == '-') {
    std::size_t k = 1;
    const auto oh = digits(zone, k, 2, 2);
    std::optional<int> om = 0;
    if (oh && k < zone.size()) {
      if (zone[k] == ':') ++k;
      om = digits(zone, k, 2, 2);
    }
    if (!oh || !om || k != zone.size() || *oh > 14 || *om > 59)
      refuse(what, text, "a zone offset is +HH:MM, -HH:MM, +HHMM or +HH (at most 14 hours)");
    const long offset = (*oh * 3600L + *om * 60L) * (zone.front() == '+' ? 1 : -1);
    out.seconds = ::timegm(&fields) - offset;
    return out;
  }
  if (!spaced) refuse(what, text, std::string("trailing text after the seconds: give ") + kForms);
  if (!known_zone_name(zone))
    refuse(what, text,
           "'" + std::string(zone) +
               "' is not a time zone this machine knows (a name of /usr/share/zoneinfo such as "
               "CET or Europe/Berlin, or an offset such as +01:00)");
  std::string why;
  const auto t = in_zone(std::string(zone), [&] { return local_fields_to_time(fields, &why); });
  if (!t) refuse(what, text, why);
  out.seconds = *t;
  return out;
}

std::string local_time_text(std::time_t t, bool with_zone) {
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::string out = buf;
  if (!with_zone) return out;
  const long off = tm.tm_gmtoff;
  const long a = off < 0 ? -off : off;
  char zone[48];
  std::snprintf(zone, sizeof zone, " %s (%c%02ld:%02ld)", tm.tm_zone ? tm.tm_zone : "",
                off < 0 ? '-' : '+', a / 3600, (a % 3600) / 60);
  out += zone;
  return out;
}

}  // namespace binrecover::recovery
