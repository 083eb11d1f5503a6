#include "binlog/row_values.h"

#include <cstdio>
#include <cstring>

#include "binlog/decimal.h"
#include "binlog/digits.h"
#include "binlog/error.h"

namespace binrecover::binlog {
namespace {

// The columns the SIGNEDNESS bitmap has a bit for: MySQL and MariaDB count YEAR among them
// (without it every later integer column takes its neighbour's signedness).
bool is_numeric(ColumnType t) {
  switch (t) {
    case ColumnType::kYear:
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
    case ColumnType::kNewDecimal:
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      return true;
    default:
      return false;
  }
}

bool is_character(ColumnType t) {
  switch (t) {
    case ColumnType::kString:
    case ColumnType::kVarString:
    case ColumnType::kVarchar:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
    case ColumnType::kGeometry:  // counted too (seen in MariaDB 10.11's COLUMN_CHARSET)
      return true;
    default:
      return false;
  }
}

std::vector<std::string> read_strings(ByteCursor& cur) {
  std::vector<std::string> out;
  const std::uint64_t n = cur.packed_int();
  if (n > cur.remaining()) throw Error(ErrorCode::kBadEvent, "too many strings", cur.offset());
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t len = cur.packed_int();
    if (len > cur.remaining()) throw Error(ErrorCode::kBadEvent, "string too long", cur.offset());
    out.emplace_back(cur.str(len));
  }
  return out;
}

// "YYYY-MM-DD"
char* put_date(char* p, unsigned y, unsigned mo, unsigned d) {
  p = put_padded4(p, y);
  *p++ = '-';
  p = put_padded2(p, mo);
  *p++ = '-';
  return put_padded2(p, d);
}

// "hh:mm:ss" (hours may pass 99)
char* put_time(char* p, unsigned h, unsigned mi, unsigned se) {
  p = put_padded2(p, h);
  *p++ = ':';
  p = put_padded2(p, mi);
  *p++ = ':';
  return put_padded2(p, se);
}

// "YYYY-MM-DD hh:mm:ss"
char* put_datetime(char* p, unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi,
                   unsigned se) {
  p = put_date(p, y, mo, d);
  *p++ = ' ';
  return put_time(p, h, mi, se);
}

// "YYYY-MM-DD hh:mm:ss" of a Unix time in UTC: the civil date from the day count (the
// era-based algorithm of Howard Hinnant's "chrono-compatible low-level date algorithms"),
// pure arithmetic where gmtime_r takes the time zone lock.
char* put_utc(char* p, std::uint32_t sec) {
  const std::uint32_t z = sec / 86400 + 719468;  // days since 0000-03-01
  const std::uint32_t rem = sec % 86400;
  const std::uint32_t era = z / 146097;
  const std::uint32_t doe = z - era * 146097;
  const std::uint32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::uint32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::uint32_t mp = (5 * doy + 2) / 153;
  const std::uint32_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::uint32_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::uint32_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return put_datetime(p, y, m, d, rem / 3600, rem / 60 % 60, rem % 60);
}

// Fractional seconds stored in `fsp` digits: read and scale to microseconds.
std::uint32_t frac_micros(ByteCursor& cur, int fsp) {
  switch ((fsp + 1) / 2) {
    case 1:
      return cur.u8() * 10000U;
    case 2:
      return cur.u16be() * 100U;
    case 3:
      return cur.u24be();
    default:
      return 0;
  }
}

// ".ffffff" cut to `fsp` digits (nothing for fsp 0).
char* put_frac(char* p, std::uint32_t micros, int fsp) {
  if (fsp <= 0) return p;
  char f[8];
  put_padded(f, micros, 6);
  *p++ = '.';
  const auto n = static_cast<std::size_t>(fsp < 6 ? fsp : 6);
  std::memcpy(p, f, n);
  return p + n;
}

}  // namespace

TableInfo table_info(const TableMap& tm) {
  TableInfo info;
  info.db.assign(tm.db);
  info.table.assign(tm.table);
  info.layout = column_layout(tm);
  const std::size_t n = info.layout.size();
  info.is_unsigned.assign(n, 0);
  info.collation.assign(n, 0);
  info.enum_values.resize(n);
  info.set_values.resize(n);
  ByteCursor cur(tm.optional_metadata, tm.optional_metadata_offset);
  while (!cur.empty()) {
    const std::uint8_t type = cur.u8();
    const std::uint64_t len = cur.packed_int();
    if (len > cur.remaining())
      throw Error(ErrorCode::kBadEvent, "table map metadata field longer than the event");
    ByteCursor f = cur.take(len);
    switch (type) {
      case 1: {  // SIGNEDNESS
        std::size_t k = 0;
        info.has_signedness = true;
        for (std::size_t i = 0; i < n; ++i) {
          if (!is_numeric(info.layout[i].type)) continue;
          if (k / 8 >= f.data().size()) break;
          const auto byte = static_cast<std::uint8_t>(f.data()[k / 8]);
          info.is_unsigned[i] = (byte & (0x80U >> (k % 8))) != 0;
          ++k;
        }
        break;
      }
      case 2: {  // DEFAULT_CHARSET
        const auto def = static_cast<std::uint16_t>(f.packed_int());
        std::vector<std::size_t> chars;
        for (std::size_t i = 0; i < n; ++i)
          if (is_character(info.layout[i].type)) chars.push_back(i);
        for (std::size_t i : chars) info.collation[i] = def;
        while (!f.empty()) {
          const std::uint64_t idx = f.packed_int();
          const auto coll = static_cast<std::uint16_t>(f.packed_int());
          if (idx < chars.size()) info.collation[chars[idx]] = coll;
        }
        break;
      }
      case 3: {  // COLUMN_CHARSET
        for (std::size_t i = 0; i < n && !f.empty(); ++i)
          if (is_character(info.layout[i].type))
            info.collation[i] = static_cast<std::uint16_t>(f.packed_int());
        break;
      }
      case 4: {  // COLUMN_NAME
        for (std::size_t i = 0; i < n && !f.empty(); ++i) {
          const std::uint64_t l = f.packed_int();
          info.names.emplace_back(f.str(l));
        }
        break;
      }
      case 5:
      case 6: {  // SET_STR_VALUE, ENUM_STR_VALUE
        const ColumnType want = type == 5 ? ColumnType::kSet : ColumnType::kEnum;
        for (std::size_t i = 0; i < n && !f.empty(); ++i)
          if (info.layout[i].type == want)
            (type == 5 ? info.set_values : info.enum_values)[i] = read_strings(f);
        break;
      }
      case 8:  // SIMPLE_PRIMARY_KEY
        while (!f.empty()) info.primary_key.push_back(static_cast<std::uint32_t>(f.packed_int()));
        break;
      case 9:  // PRIMARY_KEY_WITH_PREFIX
        while (!f.empty()) {
          info.primary_key.push_back(static_cast<std::uint32_t>(f.packed_int()));
          f.packed_int();
        }
        break;
      default:
        break;
    }
  }
  if (info.names.size() != n) info.names.clear();
  return info;
}

char* put_text_value(const ColumnLayout& c, ByteCursor& cur, char* out) {
  switch (c.type) {
    case ColumnType::kNewDecimal:
      return put_decimal(out, cur, c.meta >> 8, c.meta & 0xff);
    case ColumnType::kDate:
    case ColumnType::kNewDate: {
      const std::uint32_t d = cur.u24le();
      return put_date(out, d >> 9, (d >> 5) & 15, d & 31);
    }
    case ColumnType::kTime: {
      auto t = static_cast<std::int32_t>(cur.u24le() << 8) >> 8;
      char* p = out;
      if (t < 0) {
        *p++ = '-';
        t = -t;
      }
      return put_time(p, static_cast<unsigned>(t / 10000), static_cast<unsigned>(t / 100 % 100),
                      static_cast<unsigned>(t % 100));
    }
    case ColumnType::kDateTime: {
      const std::uint64_t t = cur.u64le();
      const std::uint64_t date = t / 1000000, time = t % 1000000;
      return put_datetime(
          out, static_cast<unsigned>(date / 10000), static_cast<unsigned>(date / 100 % 100),
          static_cast<unsigned>(date % 100), static_cast<unsigned>(time / 10000),
          static_cast<unsigned>(time / 100 % 100), static_cast<unsigned>(time % 100));
    }
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2: {
      const bool two_form = c.type == ColumnType::kTimestamp2;
      const std::uint32_t sec = two_form ? cur.u32be() : cur.u32le();
      const std::uint32_t micros = two_form ? frac_micros(cur, c.meta) : 0;
      char* p = out;
      if (sec == 0 && micros == 0) {
        p = put_datetime(p, 0, 0, 0, 0, 0, 0);
      } else {
        p = put_utc(p, sec);
      }
      return two_form ? put_frac(p, micros, c.meta) : p;
    }
    case ColumnType::kDateTime2: {
      // 40 bits big-endian, offset 0x8000000000: sign / 17 bits year*13+month / 5 day /
      // 5 hour / 6 minute / 6 second; then the fraction.
      const std::int64_t packed = static_cast<std::int64_t>(cur.uint_be(5)) - 0x8000000000LL;
      const std::uint32_t micros = frac_micros(cur, c.meta);
      const std::uint64_t p = static_cast<std::uint64_t>(packed < 0 ? -packed : packed);
      const std::uint64_t ym = (p >> 22) & 0x1ffff;
      char* o =
          put_datetime(out, static_cast<unsigned>(ym / 13), static_cast<unsigned>(ym % 13),
                       static_cast<unsigned>((p >> 17) & 31), static_cast<unsigned>((p >> 12) & 31),
                       static_cast<unsigned>((p >> 6) & 63), static_cast<unsigned>(p & 63));
      return put_frac(o, micros, c.meta);
    }
    case ColumnType::kTime2: {
      // MySQL my_time_packed_from_binary: the integer part is 24 bits offset 0x800000, the
      // fraction borrows from it for negative values.
      const int fsp = c.meta;
      std::int64_t packed;
      if (fsp >= 5) {
        packed = static_cast<std::int64_t>(cur.uint_be(6)) - 0x800000000000LL;
      } else {
        std::int64_t intpart = static_cast<std::int64_t>(cur.u24be()) - 0x800000;
        std::int64_t frac = 0;
        if (fsp >= 3) {
          frac = cur.u16be();
          if (intpart < 0 && frac) {
            ++intpart;
            frac -= 0x10000;
          }
          frac *= 100;
        } else if (fsp >= 1) {
          frac = cur.u8();
          if (intpart < 0 && frac) {
            ++intpart;
            frac -= 0x100;
          }
          frac *= 10000;
        }
        packed = (intpart << 24) + frac;
      }
      char* o = out;
      if (packed < 0) {
        *o++ = '-';
        packed = -packed;
      }
      const std::int64_t hms = packed >> 24;
      const auto micros = static_cast<std::uint32_t>(packed % (1LL << 24));
      o = put_time(o, static_cast<unsigned>((hms >> 12) % (1 << 10)),
                   static_cast<unsigned>((hms >> 6) % 64), static_cast<unsigned>(hms % 64));
      return put_frac(o, micros, fsp);
    }
    default:
      throw Error(ErrorCode::kUnsupportedFormat,
                  "column type " + std::to_string(static_cast<int>(c.type)) + " cannot be decoded",
                  cur.offset());
  }
}

void json_diffs(Bytes diffs, std::uint64_t offset, std::vector<JsonDiff>& out) {
  out.clear();
  ByteCursor cur(diffs, offset);
  while (!cur.empty()) {
    JsonDiff d;
    const std::uint8_t op = cur.u8();
    if (op > 2)
      throw Error(ErrorCode::kBadEvent, "partial JSON update with operation " + std::to_string(op),
                  cur.offset() - 1);
    d.op = static_cast<JsonDiff::Op>(op);
    const std::uint64_t path_len = cur.packed_int();
    if (path_len > cur.remaining())
      throw Error(ErrorCode::kBadEvent, "partial JSON update path runs past the value",
                  cur.offset());
    d.path = as_text(cur.bytes(static_cast<std::size_t>(path_len)));
    if (d.path.empty() || d.path.front() != '$')
      throw Error(ErrorCode::kBadEvent, "partial JSON update with a path not starting with $",
                  cur.offset());
    if (d.op != JsonDiff::Op::kRemove) {
      const std::uint64_t len = cur.packed_int();
      if (len > cur.remaining())
        throw Error(ErrorCode::kBadEvent, "partial JSON update value runs past the value",
                    cur.offset());
      d.value = cur.bytes(static_cast<std::size_t>(len));
    }
    out.push_back(d);
  }
}

}  // namespace binrecover::binlog
