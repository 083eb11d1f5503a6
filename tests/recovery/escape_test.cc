// The escaping layer (recovery/text/escape.h) and the check of binlog names from outside
// (binlog/log_name.h): no byte of a hostile text reaches a terminal as a control, ends a JSON
// string or an HTML element, and no name from a server or a manifest is a path or one of ours.
#include "recovery/text/escape.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "binlog/error.h"
#include "binlog/log_name.h"
#include "recovery/server/local_files.h"
#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {
namespace {

std::string json(std::string_view s) {
  fmt::memory_buffer b;
  append_json_string(b, s);
  return std::string(b.data(), b.size());
}

std::string html(std::string_view s) {
  fmt::memory_buffer b;
  append_html_text(b, s);
  return std::string(b.data(), b.size());
}

TEST(EscapeTest, TerminalTextKeepsTextAndShowsControlsAsHex) {
  EXPECT_EQ(terminal_text("shop.orders"), "shop.orders");
  EXPECT_EQ(terminal_text("z\xc3\xa4hler \xe5\xbc\xa0\xe4\xb8\x89 \xf0\x9f\x98\x80"),
            "z\xc3\xa4hler \xe5\xbc\xa0\xe4\xb8\x89 \xf0\x9f\x98\x80");
  // ESC ] 0 ; title BEL (sets a terminal's title), CSI 2K (erases a line), a line break.
  EXPECT_EQ(terminal_text("t\x1b]0;owned\x07"), "t\\x1b]0;owned\\x07");
  EXPECT_EQ(terminal_text("a\x1b[2Kb\nc\rd\x7f"), "a\\x1b[2Kb\\x0ac\\x0dd\\x7f");
  // C1 CSI as UTF-8 (U+009B), a right-to-left override (U+202E), bytes that are not UTF-8.
  EXPECT_EQ(terminal_text("x\xc2\x9b"
                          "2Ky"),
            "x\\xc2\\x9b2Ky");
  EXPECT_EQ(terminal_text("a\xe2\x80\xae"
                          "b"),
            "a\\xe2\\x80\\xaeb");
  EXPECT_EQ(terminal_text("\xff\xc3"), "\\xff\\xc3");
  EXPECT_EQ(terminal_text(std::string_view("a\0b", 3)), "a\\x00b");
  // No byte below 0x20 or 0x7f survives, whatever the input.
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  for (const char c : terminal_text(all)) {
    const auto b = static_cast<unsigned char>(c);
    EXPECT_TRUE(b >= 0x20 && b != 0x7f) << int(b);
  }
  // Every special at every position of texts long enough for the 16-byte scan: found there.
  for (const std::string_view special : {std::string_view("\x1b"), std::string_view("\x7f"),
                                         std::string_view("\xc2\x9b"), std::string_view("\xff")}) {
    for (std::size_t at = 0; at < 40; ++at) {
      std::string in(40, 'a');
      in.insert(at, special);
      std::string want(40, 'a');
      std::string esc;
      for (const char c : special) esc += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      want.insert(at, esc);
      EXPECT_EQ(terminal_text(in), want) << at;
      fmt::memory_buffer b;
      append_tsv_field(b, in);
      EXPECT_EQ(tsv_field(std::string(b.data(), b.size())), in) << at;
    }
  }
  // Plain text (nothing either escaper changes) told at every position of the 16-byte scan.
  EXPECT_TRUE(is_plain_text(""));
  EXPECT_TRUE(is_plain_text(std::string(50, 'p')));
  for (const char c : {'\\', '\t', '\n', '\x7f', '\x80', '\0'}) {
    for (std::size_t at = 0; at < 40; ++at) {
      std::string in(40, 'p');
      in[at] = c;
      EXPECT_FALSE(is_plain_text(in)) << at << " " << int(c);
    }
  }
  // Multibyte text across the 16-byte blocks stays as it is.
  std::string cjk;
  for (int i = 0; i < 20; ++i) cjk += "\xe5\xbc\xa0";
  EXPECT_EQ(terminal_text(cjk), cjk);
}

TEST(EscapeTest, JsonAndHtmlHoldTheTextAsText) {
  EXPECT_EQ(json("a\"b\\c\nd\x1b\x7f"), "\"a\\\"b\\\\c\\nd\\u001b\\u007f\"");
  EXPECT_EQ(json("\xff"), "\"\\ufffd\"");
  EXPECT_EQ(html("<script>a&b</script>\"'"), "&lt;script&gt;a&amp;b&lt;/script&gt;&quot;&#39;");
  EXPECT_EQ(html("a\x1b"
                 "b\xff"),
            "a\xef\xbf\xbd"
            "b\xef\xbf\xbd");
}

TEST(EscapeTest, TsvFieldsReadBack) {
  for (const std::string_view s :
       {std::string_view("shop.orders"), std::string_view("a\tb\nc\\d"), std::string_view("\\n"),
        std::string_view("\0x\0", 3), std::string_view("\t\t"), std::string_view("")}) {
    fmt::memory_buffer b;
    append_tsv_field(b, s);
    const std::string field(b.data(), b.size());
    EXPECT_EQ(field.find_first_of("\t\n"), std::string::npos);
    EXPECT_EQ(tsv_field(field), s);
  }
  fmt::memory_buffer b;
  append_tsv_field(b, std::string_view("a\0b\tc\nd\\e", 9));
  EXPECT_EQ(std::string(b.data(), b.size()), "a\\0b\\tc\\nd\\\\e");
}

TEST(LogNameTest, OnlyServerBinlogNamesPass) {
  for (const char* good :
       {"mysql-bin.000001", "db1-relay-bin.123456", "host_a.bin.0000012", "old-bin.001"})
    EXPECT_EQ(binlog::bad_log_name(good), "") << good;
  for (const std::string_view bad :
       {std::string_view("../escaped.000002"), std::string_view("a/b.000002"),
        std::string_view(".."), std::string_view(".active.000001"),
        std::string_view("binrecover-manifest.json"), std::string_view("mysql-bin.index"),
        std::string_view("x\n.000001"), std::string_view("x\x1b.000001"),
        std::string_view("a\\b.000001"), std::string_view(""), std::string_view("mysql-bin.01"),
        std::string_view("mysql-bin.0001a"), std::string_view("mysql-bin\0.000001", 17),
        std::string_view("\xc3\xa4.000001")})
    EXPECT_NE(binlog::bad_log_name(bad), "") << bad;
  EXPECT_NE(binlog::bad_log_name(std::string(201, 'a') + ".000001"), "");
}

TEST(LogNameTest, RefusalIsExitSixAndShowsTheNameEscaped) {
  try {
    binlog::check_log_name("../x\x1b.000001", "the server at h:1");
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kServer);
    EXPECT_EQ(exit_status(e.code()), 6);
    const std::string what = e.what();
    EXPECT_NE(what.find("the server at h:1"), std::string::npos) << what;
    EXPECT_NE(what.find("'../x\\x1b.000001'"), std::string::npos) << what;
  }
}

// A LOAD DATA LOCAL request from a target names a file directly inside the load folder, or it
// is refused before anything is opened.
TEST(LocalFilesTest, OnlyFilesDirectlyInsideTheLoadFolder) {
  const std::string dir = "/tmp/binrecover-load-Ab12Cd";
  EXPECT_TRUE(local_file_allowed(dir, dir + "/SQL_LOAD-1-2-3.data"));
  for (const std::string& bad :
       {std::string("/etc/passwd"), dir, dir + "/", dir + "/..", dir + "/.", dir + "/../x",
        dir + "/sub/x", dir + "x/SQL_LOAD-1", std::string("/tmp/binrecover-load-Ab12C/x"),
        std::string("SQL_LOAD-1"), std::string()})
    EXPECT_FALSE(local_file_allowed(dir, bad)) << bad;
  EXPECT_FALSE(local_file_allowed(dir, dir + std::string("/a\0b", 4)));  // (a NUL)
  EXPECT_FALSE(local_file_allowed("", "/x"));                            // no folder yet: nothing
  EXPECT_FALSE(local_file_allowed("/tmp/d/", "/tmp/d/x"));  // (a folder is named without '/')
}

}  // namespace
}  // namespace binrecover::recovery

namespace binrecover::recovery {
namespace {

std::string comment(std::string_view s) {
  fmt::memory_buffer b;
  append_comment_text(b, s);
  return std::string(b.data(), b.size());
}

// A comment's text: controls but the tab, and DEL, as \xNN; everything else as it is, at every
// position of texts long enough for the 16-byte scan.
TEST(CommentTextTest, ControlsEscapedWherever) {
  EXPECT_EQ(comment("INSERT INTO t VALUES ('a\tb')"), "INSERT INTO t VALUES ('a\tb')");
  EXPECT_EQ(comment(std::string_view("a\nb\rc\0d\x7f\x1b", 9)), "a\\x0ab\\x0dc\\x00d\\x7f\\x1b");
  EXPECT_EQ(comment("\xe5\xbc\xa0\xc2\x80"), "\xe5\xbc\xa0\xc2\x80");
  for (std::size_t at = 0; at < 40; ++at) {
    std::string in(40, 'q');
    in.insert(at, "\n");
    std::string want(40, 'q');
    want.insert(at, "\\x0a");
    EXPECT_EQ(comment(in), want) << at;
    in[at] = '\t';
    EXPECT_EQ(comment(in), in) << at;
  }
}

}  // namespace
}  // namespace binrecover::recovery
