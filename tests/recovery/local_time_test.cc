#include "recovery/reading/local_time.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "binlog/error.h"

namespace binrecover::recovery {
namespace {

// Runs the test's parses in a known zone, then gives the process its zone back.
class LocalTime : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* tz = std::getenv("TZ")) saved_ = tz;
    ::setenv("TZ", "Europe/Berlin", 1);
    ::tzset();
  }
  void TearDown() override {
    if (saved_.empty())
      ::unsetenv("TZ");
    else
      ::setenv("TZ", saved_.c_str(), 1);
    ::tzset();
  }
  std::string saved_;
};

std::time_t utc(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return ::timegm(&tm);
}

std::string refusal(const char* text) {
  try {
    parse_datetime(text, "--stop-datetime");
  } catch (const Error& e) {
    EXPECT_EQ(exit_status(e.code()), 2) << text;
    return e.what();
  }
  ADD_FAILURE() << "taken: " << text;
  return {};
}

TEST_F(LocalTime, LocalZoneAndExplicitZones) {
  // 18:00 in Berlin in December is 17:00 UTC.
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00", "x").seconds, utc(2026, 12, 3, 17, 0, 0));
  EXPECT_EQ(parse_datetime("2026-12-03T18:00:00", "x").seconds, utc(2026, 12, 3, 17, 0, 0));
  EXPECT_EQ(parse_datetime("2026-12-03 18:00", "x").seconds, utc(2026, 12, 3, 17, 0, 0));
  EXPECT_EQ(parse_datetime("2026-12-03  4:00:01", "x").seconds, utc(2026, 12, 3, 3, 0, 1));
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00Z", "x").seconds, utc(2026, 12, 3, 18, 0, 0));
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00 UTC", "x").seconds, utc(2026, 12, 3, 18, 0, 0));
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00+05:00", "x").seconds, utc(2026, 12, 3, 13, 0, 0));
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00 -0530", "x").seconds, utc(2026, 12, 3, 23, 30, 0));
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00 America/New_York", "x").seconds,
            utc(2026, 12, 3, 23, 0, 0));
  // A named zone in summer time: CEST is +02:00.
  EXPECT_EQ(parse_datetime("2026-07-01 12:00:00 CET", "x").seconds, utc(2026, 7, 1, 10, 0, 0));
  // The process's zone is given back after a named one.
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00", "x").seconds, utc(2026, 12, 3, 17, 0, 0));
  EXPECT_EQ(parse_datetime("2028-02-29 00:00:00Z", "x").seconds, utc(2028, 2, 29, 0, 0, 0));
}

TEST_F(LocalTime, FractionsRoundUpToTheNextWholeSecond) {
  const Datetime d = parse_datetime("2026-12-03 18:00:00.000001Z", "x");
  EXPECT_EQ(d.micros, 1u);
  EXPECT_EQ(d.first_whole_second(), utc(2026, 12, 3, 18, 0, 1));
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00.5Z", "x").micros, 500000u);
  EXPECT_EQ(parse_datetime("2026-12-03 18:00:00Z", "x").first_whole_second(),
            utc(2026, 12, 3, 18, 0, 0));
}

TEST_F(LocalTime, RefusesWhatItCannotReadExactly) {
  EXPECT_NE(refusal("2026-12-03").find("a date alone"), std::string::npos);
  EXPECT_NE(refusal("2026-12-03 18:00:00garbage").find("trailing text"), std::string::npos);
  EXPECT_NE(refusal("2026-12-03 18:00:00 Mars/Olympus").find("not a time zone"), std::string::npos);
  EXPECT_NE(refusal("2026-12-03 18:00:00 ../../etc/passwd").find("not a time zone"),
            std::string::npos);
  EXPECT_NE(refusal("2026-02-29 10:00:00").find("no such date"), std::string::npos);
  EXPECT_NE(refusal("2026-12-03 24:00:00").find("no such date"), std::string::npos);
  EXPECT_NE(refusal("2026-12-03 18:00:00+15:00").find("offset"), std::string::npos);
  EXPECT_NE(refusal("yesterday").find("not a datetime"), std::string::npos);
  EXPECT_NE(refusal("2026-12-03 18:00:00.1234567").find("trailing"), std::string::npos);
  EXPECT_NE(refusal("2026-12-03 18:00:00 ").find("trailing"), std::string::npos);
  // Berlin's clocks went back at 03:00 on 2026-10-25 (02:30 happened twice) and forward at
  // 02:00 on 2026-03-29 (02:30 never happened).
  EXPECT_NE(refusal("2026-10-25 02:30:00").find("happens twice"), std::string::npos);
  EXPECT_NE(refusal("2026-03-29 02:30:00").find("does not exist"), std::string::npos);
  EXPECT_EQ(parse_datetime("2026-10-25 02:30:00 +01:00", "x").seconds, utc(2026, 10, 25, 1, 30, 0));
}

TEST_F(LocalTime, TextNamesTheZone) {
  EXPECT_EQ(local_time_text(utc(2026, 12, 3, 17, 0, 5)), "2026-12-03 18:00:05");
  EXPECT_EQ(local_time_text(utc(2026, 12, 3, 17, 0, 5), true), "2026-12-03 18:00:05 CET (+01:00)");
  EXPECT_EQ(local_time_text(utc(2026, 7, 1, 10, 0, 0), true), "2026-07-01 12:00:00 CEST (+02:00)");
}

}  // namespace
}  // namespace binrecover::recovery
