// Binary JSON of real binlogs (checked against MySQL's own mysqlbinlog -v) and partial JSON
// update diffs.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "binlog/json_binary.h"
#include "binlog/row_values.h"
#include "tests/binlog/json_columns.h"

namespace binrecover::binlog {
namespace {

using testutil::doc;
using testutil::Doc;
using testutil::kPos;

// --- real binlogs from ../shared/corpus, checked against MySQL's own mysqlbinlog -v ---

// The corpus (CORPUS, else ../shared/corpus beside the source tree, as the integration tests
// find it). A machine without the corpus skips these tests; with it, a missing file fails.
std::string corpus_file(const std::string& rel) {
  const char* env = std::getenv("CORPUS");
  const std::filesystem::path root = env ? std::filesystem::path(env) : BINRECOVER_CORPUS;
  return (root / rel).string();
}
bool corpus_present() {
  const char* env = std::getenv("CORPUS");
  return std::filesystem::is_directory(env ? std::filesystem::path(env) : BINRECOVER_CORPUS);
}
#define REQUIRE_CORPUS_FILE(path)                                                   \
  do {                                                                              \
    if (!corpus_present()) GTEST_SKIP() << "the corpus is not present: " << (path); \
    ASSERT_TRUE(std::filesystem::exists(path)) << (path) << ": not in the corpus";  \
  } while (false)

std::vector<std::string> texts(const std::vector<testutil::JsonCell>& cells) {
  std::vector<std::string> out;
  for (const auto& c : cells) {
    if (c.diff) continue;
    auto copy = std::make_unique<std::byte[]>(c.bytes.size() + 1);
    std::memcpy(copy.get(), c.bytes.data(), c.bytes.size());
    std::string t;
    append_json_text(t, Bytes(copy.get(), c.bytes.size()), c.offset);
    out.push_back(t);
  }
  return out;
}

// rust_mysql_common test-data/binlogs/json-opaque.binlog (MySQL 9.0.1): eight INSERTs into
// foo.test (a json). Expected texts are what MySQL 9.7's mysqlbinlog -vv prints for them.
TEST(JsonBinaryRealTest, RustMysqlCommonJsonOpaque) {
  const std::string path = corpus_file("rust_mysql_common/test-data/binlogs/json-opaque.binlog");
  REQUIRE_CORPUS_FILE(path);
  const std::vector<std::string> want = {
      R"({"a": "base64:type15:VQ=="})",
      R"({"b": "2012-03-18"})",
      R"({"c": "2012-03-18 11:30:45.000000"})",
      R"({"c": "87:31:46.654321"})",
      R"({"d": 123.456})",
      R"({"e": 9.00})",
      R"({"e": [0, 1, true, false]})",
      R"({"e": null})",
  };
  EXPECT_EQ(texts(testutil::json_cells(path)), want);
}

// rust_mysql_common test-data/binlogs/json.binlog.000001 (MySQL 8.0.22): table mysql.t
// (id, json_col JSON, name AS (json_col->>'$.name'), age AS (json_col->'$.age')), six INSERTs,
// an UPDATE of all six rows with full images, then one with PARTIAL_JSON diffs (left out).
// Expected texts: MySQL 9.7's mysqlbinlog -vv; the generated columns the server logged beside
// each document (name, age) agree with them.
TEST(JsonBinaryRealTest, RustMysqlCommonJsonWithUpdates) {
  const std::string path = corpus_file("rust_mysql_common/test-data/binlogs/json.binlog.000001");
  REQUIRE_CORPUS_FILE(path);
  const std::string joe = R"({"age": 24, "data": "xxxxxxxxxx", "name": "Joe"})";
  const std::string sue = R"({"age": 32, "data": "yyyyyyyyyy", "name": "Sue"})";
  const std::string pete = R"({"age": 40, "data": "zzzzzzzzzz", "name": "Pete"})";
  const std::string joe2 = R"({"age": 25, "data": "xxxxxxxxxx", "name": "Joe"})";
  const std::string sue2 = R"({"age": 33, "data": "yyyyyyyyyy", "name": "Sue"})";
  const std::string pete2 = R"({"age": 41, "data": "zzzzzzzzzz", "name": "Pete"})";
  const std::vector<std::string> want = {joe,  sue,  pete,  joe, sue,  pete, joe,  joe2, sue,
                                         sue2, pete, pete2, joe, joe2, sue,  sue2, pete, pete2};
  const auto cells = testutil::json_cells(path);
  EXPECT_EQ(texts(cells), want);
  std::size_t diffs = 0;
  for (const auto& c : cells) diffs += c.diff ? 1 : 0;
  EXPECT_EQ(diffs, 6U);
}

// MariaDB's mysql-test/std_data/mdev35643_mysql_80_binlog.000001 (MySQL 8.0.40, zstd
// transaction payloads, PARTIAL_JSON): one document, then a JSON_REPLACE logged as a diff.
// Expected text: MySQL 9.7's mysqlbinlog -vv.
TEST(JsonBinaryRealTest, MariaDbMdev35643MySql80) {
  const std::string path =
      corpus_file("mariadb-server-10.11/std_data/mdev35643_mysql_80_binlog.000001");
  REQUIRE_CORPUS_FILE(path);
  std::string b;
  for (int i = 0; i < 100; ++i) b += "[zyzzy]";
  const auto cells = testutil::json_cells(path);
  EXPECT_EQ(texts(cells),
            std::vector<std::string>{R"({"a": "hulu", "b": ")" + b + R"(", "c": "bulu"})"});
  ASSERT_EQ(cells.size(), 2U);
  EXPECT_TRUE(cells[1].diff);
}

// Partial JSON update diffs (sql/json_diff.cc Json_diff::write_binary): u8 op / packed path
// length / path / [packed value length / binary JSON value].
TEST(JsonDiffsTest, ReplaceInsertRemoveInOrder) {
  const Doc d = doc({
      0, 3, '$', '.', 'a', 3,   0x05, 0x02, 0x00,  // REPLACE $.a 2 (int16)
      1, 4, '$', '[', '1', ']', 2,    0x04, 0x00,  // INSERT $[1] null
      2, 5, '$', '.', '"', 'b', '"',               // REMOVE $."b"
  });
  std::vector<JsonDiff> out;
  json_diffs(Bytes(d.data(), d.size()), kPos, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].op, JsonDiff::Op::kReplace);
  EXPECT_EQ(out[0].path, "$.a");
  std::string text;
  append_json_text(text, out[0].value, kPos);
  EXPECT_EQ(text, "2");
  EXPECT_EQ(out[1].op, JsonDiff::Op::kInsert);
  EXPECT_EQ(out[1].path, "$[1]");
  text.clear();
  append_json_text(text, out[1].value, kPos);
  EXPECT_EQ(text, "null");
  EXPECT_EQ(out[2].op, JsonDiff::Op::kRemove);
  EXPECT_EQ(out[2].path, "$.\"b\"");
  EXPECT_TRUE(out[2].value.empty());
}

TEST(JsonDiffsTest, EveryTruncationAndBadOperationIsAnError) {
  const Doc d = doc({0, 3, '$', '.', 'a', 3, 0x05, 0x02, 0x00});
  std::vector<JsonDiff> out;
  for (std::size_t n = 1; n < d.size(); ++n) {
    auto copy = std::make_unique<std::byte[]>(n);
    std::memcpy(copy.get(), d.data(), n);
    EXPECT_THROW(json_diffs(Bytes(copy.get(), n), kPos, out), Error) << n << " bytes";
  }
  const Doc bad_op = doc({3, 1, '$'});
  EXPECT_THROW(json_diffs(Bytes(bad_op.data(), bad_op.size()), kPos, out), Error);
  const Doc bad_path = doc({2, 2, 'a', 'b'});
  EXPECT_THROW(json_diffs(Bytes(bad_path.data(), bad_path.size()), kPos, out), Error);
  json_diffs(Bytes(), kPos, out);  // no change: an empty vector
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace binrecover::binlog
