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

// The columns the server gives a collation in COLUMN_CHARSET / DEFAULT_CHARSET: MariaDB counts
// GEOMETRY (seen in MariaDB 10.11's COLUMN_CHARSET) and its compressed BLOB and VARCHAR (types
// 140 and 141), MySQL 9 counts VECTOR instead.
bool is_character(ColumnType t, bool mariadb) {
  switch (t) {
    case ColumnType::kString:
    case ColumnType::kVarString:
    case ColumnType::kVarchar:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
      return true;
    case ColumnType::kGeometry:
      return mariadb;
    case ColumnType::kVector:
      return !mariadb;
    default:
      return mariadb &&
             (static_cast<std::uint8_t>(t) == 140 || static_cast<std::uint8_t>(t) == 141);
  }
}

// The collation of the k-th column of a class, as the DEFAULT_CHARSET / COLUMN_CHARSET lists
// give it (0: none).
std::uint32_t class_collation(const OptionalMetadata::Charsets& cs, std::size_t k) {
  if (cs.has_default) {
    for (const auto& [index, id] : cs.exceptions)
      if (index == k) return id;
    return cs.default_id;
  }
  return k < cs.per_column.size() ? cs.per_column[k] : 0;
}

// A bitmap field, one bit per entry, high bit first.
std::vector<char> read_bits(ByteCursor& f) {
  std::vector<char> bits;
  while (!f.empty()) {
    const std::uint8_t byte = f.u8();
    for (int b = 7; b >= 0; --b) bits.push_back(static_cast<char>((byte >> b) & 1));
  }
  return bits;
}

// DEFAULT_CHARSET: the default, then (index, collation) pairs.
void read_default_charset(ByteCursor& f, OptionalMetadata::Charsets& cs) {
  cs.has_default = true;
  cs.default_id = static_cast<std::uint32_t>(f.packed_int());
  while (!f.empty()) {
    const std::uint64_t index = f.packed_int();
    cs.exceptions.emplace_back(index, static_cast<std::uint32_t>(f.packed_int()));
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

void parse_optional_metadata(const TableMap& tm, OptionalMetadata& out) {
  ByteCursor cur(tm.optional_metadata, tm.optional_metadata_offset);
  while (!cur.empty()) {
    const std::uint8_t type = cur.u8();
    const std::uint64_t len = cur.packed_int();
    if (len > cur.remaining())
      throw Error(ErrorCode::kBadEvent, "table map metadata field longer than the event");
    ByteCursor f = cur.take(len);
    switch (type) {
      case 1:  // SIGNEDNESS
        out.has_signedness = true;
        out.signedness = read_bits(f);
        break;
      case 2:  // DEFAULT_CHARSET
        read_default_charset(f, out.charsets);
        break;
      case 3:  // COLUMN_CHARSET
        while (!f.empty())
          out.charsets.per_column.push_back(static_cast<std::uint32_t>(f.packed_int()));
        break;
      case 4:  // COLUMN_NAME
        while (!f.empty()) {
          const std::uint64_t l = f.packed_int();
          out.names.emplace_back(f.str(l));
        }
        break;
      case 5:  // SET_STR_VALUE
      case 6:  // ENUM_STR_VALUE
        while (!f.empty())
          (type == 5 ? out.set_values : out.enum_values).push_back(read_strings(f));
        break;
      case 7:  // GEOMETRY_TYPE
        while (!f.empty()) out.geometry_types.push_back(f.packed_int());
        break;
      case 8:  // SIMPLE_PRIMARY_KEY
        while (!f.empty()) out.primary_key.emplace_back(f.packed_int(), 0);
        break;
      case 9:  // PRIMARY_KEY_WITH_PREFIX
        while (!f.empty()) {
          const std::uint64_t index = f.packed_int();
          out.primary_key.emplace_back(index, f.packed_int());
        }
        break;
      case 10:  // ENUM_AND_SET_DEFAULT_CHARSET
        read_default_charset(f, out.enum_set_charsets);
        break;
      case 11:  // ENUM_AND_SET_COLUMN_CHARSET
        while (!f.empty())
          out.enum_set_charsets.per_column.push_back(static_cast<std::uint32_t>(f.packed_int()));
        break;
      case 12:  // COLUMN_VISIBILITY
        out.visibility = read_bits(f);
        break;
      case 13:  // VECTOR_DIMENSIONALITY
        while (!f.empty()) out.vector_dimensions.push_back(f.packed_int());
        break;
      default:
        break;
    }
  }
}

TableInfo table_info(const TableMap& tm, bool mariadb) {
  TableInfo info;
  info.db.assign(tm.db);
  info.table.assign(tm.table);
  info.layout = column_layout(tm);
  const std::size_t n = info.layout.size();
  info.mariadb = mariadb;
  info.nullable.assign(n, 0);
  for (std::size_t i = 0; i < n && i / 8 < tm.null_bits.size(); ++i)
    info.nullable[i] =
        static_cast<char>((static_cast<unsigned>(tm.null_bits[i / 8]) >> (i % 8)) & 1);
  info.is_unsigned.assign(n, 0);
  info.collation.assign(n, 0);
  info.enum_values.resize(n);
  info.set_values.resize(n);
  OptionalMetadata m;
  parse_optional_metadata(tm, m);
  info.has_signedness = m.has_signedness;
  info.vector_dimensions.assign(n, 0);
  std::size_t numeric = 0, character = 0, enums = 0, sets = 0, vectors = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const ColumnType t = info.layout[i].type;
    if (is_numeric(t)) {
      if (numeric < m.signedness.size()) info.is_unsigned[i] = m.signedness[numeric];
      ++numeric;
    }
    const bool has_charsets = m.charsets.has_default || !m.charsets.per_column.empty();
    if (is_character(t, mariadb) && has_charsets)
      info.collation[i] = static_cast<std::uint16_t>(class_collation(m.charsets, character++));
    if (t == ColumnType::kVector && vectors < m.vector_dimensions.size())
      info.vector_dimensions[i] = static_cast<std::uint32_t>(m.vector_dimensions[vectors++]);
    if (t == ColumnType::kEnum && enums < m.enum_values.size())
      info.enum_values[i] = std::move(m.enum_values[enums++]);
    if (t == ColumnType::kSet && sets < m.set_values.size())
      info.set_values[i] = std::move(m.set_values[sets++]);
  }
  if (m.names.size() == n) info.names = std::move(m.names);
  for (const auto& key_part : m.primary_key)
    info.primary_key.push_back(static_cast<std::uint32_t>(key_part.first));
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
