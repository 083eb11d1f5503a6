// Base backups: the manifest read back, IDs, retention's decision, zstd streams.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binlog/error.h"
#include "recovery/archive/retention.h"
#include "recovery/backups/catalog.h"
#include "recovery/storage/envelope.h"
#include "recovery/storage/zstd_stream.h"

namespace binrecover::recovery {
namespace {

BackupEntry backup(const std::string& id, std::int64_t started, const std::string& file) {
  BackupEntry b;
  b.id = id;
  b.started = started;
  b.completed = started + 10;
  b.binlog_file = file;
  b.binlog_pos = 4;
  b.sha256 = std::string(64, 'a');
  return b;
}

TEST(BackupCatalog, ManifestRoundTrip) {
  BackupEntry b = backup("20261205T040000Z", 1796443200, "mysql-bin.000023");
  b.mariadb_gtids = "0-1-42";
  b.databases = {"shop", "crm"};
  b.dump_bytes = 1000;
  b.stored_bytes = 200;
  const BackupEntry r = BackupEntry::from_json(b.to_json(), "t");
  EXPECT_EQ(r.id, b.id);
  EXPECT_EQ(r.binlog_file, "mysql-bin.000023");
  EXPECT_EQ(r.binlog_pos, std::optional<std::uint64_t>(4));
  EXPECT_EQ(r.mariadb_gtids, "0-1-42");
  EXPECT_EQ(r.databases, b.databases);
  EXPECT_EQ(r.dump_bytes, 1000U);
}

TEST(BackupCatalog, HostileManifestsRefused) {
  BackupEntry b = backup("20261205T040000Z", 1796443200, "mysql-bin.000023");
  std::string text = b.to_json();
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_THROW(BackupEntry::from_json(with("20261205T040000Z", "../../etc"), "t"), Error);
  EXPECT_THROW(BackupEntry::from_json(with("mysql-bin.000023", "../x.000001"), "t"), Error);
  EXPECT_THROW(BackupEntry::from_json(with("dump.sql.zst", "../../x"), "t"), Error);
  EXPECT_THROW(BackupEntry::from_json(with("\"zstd\"", "\"gzip\""), "t"), Error);
  EXPECT_THROW(BackupEntry::from_json("{", "t"), Error);
}

TEST(BackupCatalog, Ids) {
  EXPECT_TRUE(valid_backup_id("20261205T040000Z"));
  EXPECT_TRUE(valid_backup_id("20261205T040000Z-2"));
  EXPECT_FALSE(valid_backup_id("20261205T040000"));
  EXPECT_FALSE(valid_backup_id("20261205T040000Z/.."));
  EXPECT_FALSE(valid_backup_id(".."));
  EXPECT_EQ(backup_id_at(0), "19700101T000000Z");
}

TEST(Retention, KeepsTheNewestNAndTheBinlogsTheyNeed) {
  const std::vector<BackupEntry> b = {backup("20261201T000000Z", 100, "mysql-bin.000002"),
                                      backup("20261202T000000Z", 200, "mysql-bin.000004"),
                                      backup("20261203T000000Z", 300, "mysql-bin.000005")};
  const std::vector<std::string> files = {"mysql-bin.000001", "mysql-bin.000002",
                                          "mysql-bin.000003", "mysql-bin.000004",
                                          "mysql-bin.000005"};
  RetentionPolicy p;
  p.keep = 2;
  const RetentionPlan r = plan_retention(b, files, p, 400);
  ASSERT_EQ(r.dropped.size(), 1U);
  EXPECT_EQ(r.dropped[0].id, "20261201T000000Z");
  EXPECT_EQ(r.drop_files,
            (std::vector<std::string>{"mysql-bin.000001", "mysql-bin.000002", "mysql-bin.000003"}));
  p.keep = 5;  // more than there are: nothing goes but what no backup needs
  const RetentionPlan all = plan_retention(b, files, p, 400);
  EXPECT_TRUE(all.dropped.empty());
  EXPECT_EQ(all.drop_files, (std::vector<std::string>{"mysql-bin.000001"}));
}

TEST(Retention, DaysAndCountKeepTheUnionAndNeverTheNewest) {
  const std::vector<BackupEntry> b = {backup("20261201T000000Z", 0, "mysql-bin.000001"),
                                      backup("20261202T000000Z", 86400, "mysql-bin.000002"),
                                      backup("20261203T000000Z", 2 * 86400, "mysql-bin.000003")};
  const std::vector<std::string> files = {"mysql-bin.000001", "mysql-bin.000002",
                                          "mysql-bin.000003"};
  RetentionPolicy p;
  p.days = 1;  // only the newest is younger than a day at 2.5 days
  RetentionPlan r = plan_retention(b, files, p, 2 * 86400 + 43200);
  EXPECT_EQ(r.kept.size(), 1U);
  EXPECT_EQ(r.drop_files.size(), 2U);
  p.keep = 2;  // the union: the two newest
  r = plan_retention(b, files, p, 2 * 86400 + 43200);
  EXPECT_EQ(r.kept.size(), 2U);
  EXPECT_EQ(r.drop_files, (std::vector<std::string>{"mysql-bin.000001"}));
  p.days = 30;
  p.keep.reset();
  r = plan_retention(b, files, p, 2 * 86400 + 43200);
  EXPECT_TRUE(r.dropped.empty());
}

TEST(Retention, KeepsEveryBinlogWhenTheOldestKeptBackupsFileIsMissing) {
  const std::vector<BackupEntry> b = {backup("20261201T000000Z", 0, "mysql-bin.000009")};
  RetentionPolicy p;
  p.keep = 1;
  const RetentionPlan r = plan_retention(b, {"mysql-bin.000001", "mysql-bin.000002"}, p, 10);
  EXPECT_TRUE(r.drop_files.empty());
  EXPECT_TRUE(plan_retention({}, {"mysql-bin.000001"}, p, 10).drop_files.empty());
}

TEST(ZstdStream, RoundTripAndDamage) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "INSERT INTO t VALUES (" + std::to_string(i) + ");\n";
  std::string packed;
  ZstdCompressor z(3, 0, [&](std::string_view b) { packed.append(b); });
  z.write(text.substr(0, 1000));
  z.write(text.substr(1000));
  z.finish();
  EXPECT_LT(packed.size(), text.size() / 5);
  std::string back;
  ZstdDecompressor d("t", [&](std::string_view b) { back.append(b); });
  for (std::size_t i = 0; i < packed.size(); i += 7000)
    d.write(std::string_view(packed).substr(i, 7000));
  d.finish();
  EXPECT_EQ(back, text);
  // Cut short: an error at the end, not a short dump.
  std::string cut;
  ZstdDecompressor c("t", [&](std::string_view b) { cut.append(b); });
  c.write(std::string_view(packed).substr(0, packed.size() / 2));
  EXPECT_THROW(c.finish(), Error);
  // A byte changed: its checksum.
  std::string bad = packed;
  bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x5a);
  std::string out;
  ZstdDecompressor e("t", [&](std::string_view b) { out.append(b); });
  EXPECT_THROW(
      {
        e.write(bad);
        e.finish();
      },
      Error);
}

Codec keyed(unsigned char fill, bool zstd) {
  Codec c;
  c.zstd = zstd;
  std::array<unsigned char, 32> k{};
  k.fill(fill);
  c.key = k;
  c.key_id = key_id_of(k);
  return c;
}

binlog::Bytes bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

TEST(Envelope, SealedAndOpenedEveryWay) {
  std::string text =
      "\xfe"
      "bin";
  for (int i = 0; i < 5000; ++i)
    text += "INSERT INTO shop.orders VALUES (" + std::to_string(i) + ");";
  for (const Codec& c : {Codec{true, 3, std::nullopt, ""}, keyed(7, false), keyed(7, true)}) {
    const std::vector<std::byte> e = seal(c, bytes_of(text));
    ASSERT_TRUE(is_envelope(e));
    EXPECT_EQ(envelope_size(e, "t"), std::optional<std::size_t>(e.size()));
    const std::string stored(reinterpret_cast<const char*>(e.data()), e.size());
    if (c.key) {
      EXPECT_EQ(stored.find("INSERT INTO"), std::string::npos);
      EXPECT_EQ(stored.find("\xfe"
                            "bin"),
                std::string::npos);
    }
    const std::vector<std::byte> back = unseal(c, e, "t");
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(back.data()), back.size()), text);
  }
}

TEST(Envelope, WrongKeyNoKeyAndDamageAreErrors) {
  const std::string text(100000, 'x');
  const std::vector<std::byte> e = seal(keyed(1, true), bytes_of(text));
  try {
    unseal(keyed(2, true), e, "obj");
    FAIL() << "another key opened it";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(err.what()).find("another key"), std::string::npos);
  }
  try {
    unseal(Codec{}, e, "obj");
    FAIL() << "no key opened it";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kUsage);
  }
  for (std::size_t at : {std::size_t{9}, kEnvelopeHeader + 3, e.size() - 1}) {
    std::vector<std::byte> bad = e;
    bad[at] ^= std::byte{1};
    try {
      unseal(keyed(1, true), bad, "obj");
      FAIL() << "a changed byte at " << at << " went unnoticed";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), ErrorCode::kIo) << at;
    }
  }
}

// A header claiming more than any piece holds (a hostile bucket's): refused from the header
// alone, before anything that large is gathered or allocated.
TEST(Envelope, ASizeLargerThanAnyPieceIsRefusedFromTheHeader) {
  Codec z;
  z.zstd = true;
  std::vector<std::byte> e = seal(z, bytes_of(std::string(1000, 'y')));
  std::vector<std::byte> big = e;
  big[8 + 4] = std::byte{0x10};  // original size 2^36
  try {
    unseal(z, big, "obj");
    FAIL() << "a 64 GiB envelope was opened";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(err.what()).find("larger than 1 GiB"), std::string::npos);
  }
  std::vector<std::byte> payload = e;
  payload[16 + 3] = std::byte{0x7f};  // payload size near 2 GiB
  EXPECT_THROW(envelope_size(payload, "obj"), Error);
}

}  // namespace
}  // namespace binrecover::recovery
