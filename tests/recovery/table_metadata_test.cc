// Table maps' optional metadata: the lists as parsed (binlog/row_values.h), their columns per
// flavour (table_info), and the --print-table-metadata comments of both clients
// (recovery/sql/event_info.h) for cases real servers do not write, each expected text worked
// out from the clients' rules by hand (the integration test print_table_metadata.sh compares
// real servers' maps with mysqlbinlog and mariadb-binlog).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binlog/charsets.h"
#include "binlog/row_values.h"
#include "recovery/sql/event_info.h"
#include "tests/binlog/wire.h"

namespace binrecover::recovery {
namespace {

using binlog::fixtures::Wire;

// A table map's column part, held together with the bytes it points into.
struct Map {
  Wire types, meta, nulls, opt;
  binlog::TableMap tm;
  std::uint64_t columns = 0;

  Map& column(std::uint8_t type, std::vector<std::uint8_t> metadata = {}) {
    types.u8(type);
    for (std::uint8_t b : metadata) meta.u8(b);
    ++columns;
    return *this;
  }
  // A field of the optional metadata: type, length, value.
  Map& field(std::uint8_t type, const Wire& value) {
    opt.u8(type).u8(value.size());
    opt.append(value);
    return *this;
  }
  const binlog::TableMap& map(std::uint64_t null_bits = 0, std::uint16_t flags = 0) {
    nulls = Wire();
    for (std::uint64_t i = 0; i < (columns + 7) / 8; ++i) nulls.u8((null_bits >> (8 * i)) & 0xff);
    tm = binlog::TableMap{};
    tm.db = "d";
    tm.table = "t";
    tm.flags = flags;
    tm.column_count = columns;
    tm.column_types = types.bytes();
    tm.metadata = meta.bytes();
    tm.null_bits = nulls.bytes();
    tm.optional_metadata = opt.bytes();
    return tm;
  }
};

Wire names(std::initializer_list<std::string_view> list) {
  Wire w;
  for (std::string_view n : list) w.u8(n.size()).str(n);
  return w;
}

std::string text(const binlog::TableMap& tm, bool mariadb) {
  fmt::memory_buffer out;
  append_table_metadata(out, tm, mariadb);
  return fmt::to_string(out);
}

TEST(OptionalMetadataTest, ListsAsLogged) {
  Map m;
  m.column(3).column(255, {4}).column(254, {247, 1}).column(15, {40, 0}).column(242, {4});
  Wire sign, geo, pk, vis, dim, es;
  sign.u8(0x80);
  geo.u8(1);
  pk.u8(3).u8(10).u8(0).u8(0);
  vis.u8(0xb0);
  dim.u8(3);
  es.u8(2).u8(3).str(std::string_view("a\0b", 3)).u8(0);
  m.field(1, sign).field(4, names({"a", "b", "c", "d", "e"})).field(6, es).field(7, geo);
  m.field(9, pk).field(12, vis).field(13, dim).field(99, names({"skipped"}));
  binlog::OptionalMetadata o;
  binlog::parse_optional_metadata(m.map(), o);
  EXPECT_TRUE(o.has_signedness);
  EXPECT_EQ(o.signedness, (std::vector<char>{1, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(o.names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  ASSERT_EQ(o.enum_values.size(), 1U);
  EXPECT_EQ(o.enum_values[0], (std::vector<std::string>{std::string("a\0b", 3), ""}));
  EXPECT_EQ(o.geometry_types, (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(o.primary_key, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{3, 10}, {0, 0}}));
  EXPECT_EQ(o.visibility, (std::vector<char>{1, 0, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(o.vector_dimensions, (std::vector<std::uint64_t>{3}));
}

TEST(OptionalMetadataTest, BadFieldKeepsTheFieldsBefore) {
  Map m;
  m.column(3);
  m.field(4, names({"a"}));
  m.opt.u8(8).u8(50);  // longer than what is left
  binlog::OptionalMetadata o;
  EXPECT_THROW(binlog::parse_optional_metadata(m.map(), o), Error);
  EXPECT_EQ(o.names, (std::vector<std::string>{"a"}));
  EXPECT_THROW(binlog::table_info(m.map(), false), Error);
  EXPECT_EQ(text(m.map(1), false), "# Columns(`a` INT)\n");
}

// COLUMN_CHARSET covers GEOMETRY in MariaDB's logs and VECTOR in MySQL's.
TEST(OptionalMetadataTest, CharacterColumnsPerFlavour) {
  Map m;
  m.column(255, {4}).column(242, {4}).column(15, {10, 0});
  Wire cs;
  cs.u8(63).u8(8);
  m.field(3, cs);
  const binlog::TableInfo maria = binlog::table_info(m.map(), true);
  EXPECT_EQ(maria.collation, (std::vector<std::uint16_t>{63, 0, 8}));
  const binlog::TableInfo mysql = binlog::table_info(m.map(), false);
  EXPECT_EQ(mysql.collation, (std::vector<std::uint16_t>{0, 63, 8}));
}

TEST(CollationTest, EachProductsNames) {
  EXPECT_EQ(binlog::find_collation(245, false)->name, "utf8mb4_croatian_ci");
  EXPECT_EQ(binlog::find_collation(245, true)->name, "utf8mb4_croatian_mysql561_ci");
  EXPECT_EQ(binlog::find_collation(255, true), nullptr);
  EXPECT_EQ(binlog::find_collation(255, false)->name, "utf8mb4_0900_ai_ci");
  EXPECT_EQ(binlog::find_collation(2304, true)->name, "utf8mb4_uca1400_ai_ci");
  EXPECT_EQ(binlog::find_collation(2304, false), nullptr);
  EXPECT_EQ(binlog::find_collation(1057, false), nullptr);  // utf8mb3_general_nopad_ci
  EXPECT_EQ(binlog::find_collation(1057)->name, "utf8mb3_general_nopad_ci");
  EXPECT_EQ(binlog::mbmaxlen("utf8mb3"), 3U);
  EXPECT_EQ(binlog::mbmaxlen("latin1"), 1U);
}

// MINIMAL metadata of a table with a generated invisible primary key: MySQL fills in my_row_id.
TEST(TableMetadataTest, GeneratedPrimaryKeyWithoutNames) {
  Map m;
  m.column(8).column(3);
  Wire sign;
  sign.u8(0x80);
  m.field(1, sign);
  EXPECT_EQ(text(m.map(0b10, 0x0004), false),
            "# Columns(`my_row_id` BIGINT UNSIGNED NOT NULL INVISIBLE AUTO_INCREMENT,\n"
            "#         INT)\n"
            "# Primary Key(my_row_id)\n");
  EXPECT_EQ(text(m.map(0b10, 0x0004), true),
            "# Columns(BIGINT UNSIGNED NOT NULL,\n"
            "#         INT)\n");
}

// A type the client does not know: INVALID_TYPE, and the next column straight after it; the
// metadata of the unknown column is not stepped over.
TEST(TableMetadataTest, UnknownTypeGluedToTheNext) {
  Map m;
  m.column(20).column(3).column(7);
  m.field(4, names({"a`b", "c", "d"}));
  EXPECT_EQ(text(m.map(0b111), false),
            "# Columns(`a``b` INVALID_TYPE(20)`c` INT,\n#         `d` INVALID_TYPE(7))\n");
  EXPECT_EQ(text(m.map(0b111), true),
            "# Columns(`a`b` INVALID_TYPE(20)`c` INT,\n#         `d` INVALID_TYPE(7))\n");
}

// No optional metadata at all: bare types; CHAR and TEXT without a character set are binary.
TEST(TableMetadataTest, NoOptionalMetadata) {
  Map m;
  m.column(254, {254, 40}).column(252, {2}).column(15, {8, 1}).column(245, {4}).column(255, {4});
  EXPECT_EQ(text(m.map(0), false),
            "# Columns(BINARY(40) NOT NULL,\n#         BLOB NOT NULL,\n"
            "#         VARBINARY(264) NOT NULL,\n#         JSON NOT NULL,\n"
            "#         GEOMETRY NOT NULL)\n");
  EXPECT_EQ(text(m.map(0), true),
            "# Columns(BINARY(40) NOT NULL,\n#         BLOB NOT NULL,\n"
            "#         VARBINARY(264) NOT NULL,\n#         INVALID_TYPE(245)GEOMETRY NOT NULL)\n");
  Map none;
  EXPECT_EQ(text(none.map(), false), "# Columns()\n");
}

// ENUM values: ", " in MySQL, "," in MariaDB; an empty list is a lone ")"; a binary ENUM still
// names its character set. Primary key names raw, indexes past the names as numbers.
TEST(TableMetadataTest, EnumValuesAndPrimaryKey) {
  Map m;
  m.column(254, {247, 1}).column(254, {248, 1}).column(3);
  Wire es, sets, cs, pk;
  es.u8(2).u8(2).str("x'").u8(1).str("\n");
  sets.u8(0);
  cs.u8(63).u8(8);
  pk.u8(2).u8(0).u8(1).u8(0).u8(7).u8(3);
  m.field(4, names({"e", "s`"})).field(6, es).field(5, sets).field(11, cs).field(9, pk);
  EXPECT_EQ(text(m.map(0b011), false),
            "# Columns(`e` ENUM('x\\'', '\\n') CHARSET binary COLLATE binary,\n"
            "#         `s``` SET) CHARSET latin1 COLLATE latin1_swedish_ci,\n"
            "#         INT NOT NULL)\n"
            "# Primary Key(2, s`, 7(3))\n");
  EXPECT_EQ(text(m.map(0b011), true),
            "# Columns(`e` ENUM('x\\'','\\n') CHARSET binary COLLATE binary,\n"
            "#         `s`` SET) CHARSET latin1 COLLATE latin1_swedish_ci,\n"
            "#         INT NOT NULL)\n"
            "# Primary Key(2, s`, 7(3))\n");
}

}  // namespace
}  // namespace binrecover::recovery
