#include "serialize/json.h"

#include <string>

#include "gtest/gtest.h"
#include "tensor/error.h"

namespace ember {
namespace json {
namespace {

// The message of the ember::Error that parse(text) throws ("" if none).
std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(JsonTest, ParsesNestedValuesInOrder) {
  Value v = parse(R"( {"b": [1, -2.5e3, true, false, null], "a": {"x": "y"}} )");
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v.object().size(), 2u);
  EXPECT_EQ(v.object()[0].first, "b");
  EXPECT_EQ(v.object()[1].first, "a");
  const Value* b = v.find("b");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->array().size(), 5u);
  EXPECT_EQ(b->array()[0].number_text(), "1");
  EXPECT_EQ(b->array()[1].number_text(), "-2.5e3");
  EXPECT_TRUE(b->array()[2].boolean());
  EXPECT_EQ(b->array()[3].kind(), Value::Kind::Bool);
  EXPECT_FALSE(b->array()[3].boolean());
  EXPECT_EQ(b->array()[4].kind(), Value::Kind::Null);
  EXPECT_EQ(v.find("a")->find("x")->string(), "y");
  EXPECT_EQ(v.find("zzz"), nullptr);
}

TEST(JsonTest, DecodesEscapesAndSurrogatePairs) {
  Value v = parse(R"("q\" b\\ s\/ \b\f\n\r\t \u00e9 \ud83d\ude00")");
  EXPECT_EQ(v.string(), "q\" b\\ s/ \b\f\n\r\t \xc3\xa9 \xf0\x9f\x98\x80");
}

TEST(JsonTest, KeepsRawUtf8) {
  EXPECT_EQ(parse("\"\xc3\xa9\xe2\x9c\x93\"").string(), "\xc3\xa9\xe2\x9c\x93");
}

TEST(JsonTest, AsIndexAcceptsOnlyNonNegativeInt64) {
  int64_t out = -1;
  EXPECT_TRUE(parse("0").as_index(&out));
  EXPECT_EQ(out, 0);
  EXPECT_TRUE(parse("9223372036854775807").as_index(&out));
  EXPECT_EQ(out, INT64_MAX);
  EXPECT_FALSE(parse("9223372036854775808").as_index(&out));
  EXPECT_FALSE(parse("99999999999999999999").as_index(&out));
  EXPECT_FALSE(parse("-1").as_index(&out));
  EXPECT_FALSE(parse("1.0").as_index(&out));
  EXPECT_FALSE(parse("1e3").as_index(&out));
  EXPECT_FALSE(parse("\"1\"").as_index(&out));
}

TEST(JsonTest, RejectsDuplicateKeys) {
  EXPECT_EQ(parse_error(R"({"a": 1, "a": 2})"), "invalid JSON at byte 9: duplicate key \"a\"");
}

TEST(JsonTest, RejectsMalformedStructure) {
  EXPECT_NE(parse_error("").find("expected a value but the text ended"), std::string::npos);
  EXPECT_NE(parse_error("{\"a\": 1,}").find("expected a string key"), std::string::npos);
  EXPECT_NE(parse_error("[1, 2,]").find("unexpected character"), std::string::npos);
  EXPECT_NE(parse_error("{\"a\" 1}").find("expected ':'"), std::string::npos);
  EXPECT_NE(parse_error("{\"a\": 1").find("expected ',' or '}' but the text ended"),
            std::string::npos);
  EXPECT_NE(parse_error("[1 2]").find("expected ']'"), std::string::npos);
  EXPECT_NE(parse_error("{} {}").find("unexpected trailing characters"), std::string::npos);
  EXPECT_NE(parse_error("tru").find("unexpected character"), std::string::npos);
  EXPECT_NE(parse_error("{'a': 1}").find("expected a string key"), std::string::npos);
}

TEST(JsonTest, RejectsNonStandardNumbers) {
  for (const char* bad : {"01", "-", "1.", ".5", "1e", "+1", "NaN", "Infinity", "0x10", "1.e5"}) {
    EXPECT_NE(parse_error(bad), "") << bad;
  }
}

TEST(JsonTest, RejectsBadStrings) {
  EXPECT_NE(parse_error("\"abc").find("unterminated string"), std::string::npos);
  EXPECT_NE(parse_error("\"a\nb\"").find("control character in string"), std::string::npos);
  EXPECT_NE(parse_error(R"("\x")").find("invalid escape"), std::string::npos);
  EXPECT_NE(parse_error(R"("\u12")").find("\\u escape"), std::string::npos);
  EXPECT_NE(parse_error(R"("\u12g4")").find("invalid \\u escape"), std::string::npos);
  EXPECT_NE(parse_error(R"("\ud83d")").find("unpaired surrogate"), std::string::npos);
  EXPECT_NE(parse_error(R"("\ude00")").find("unpaired surrogate"), std::string::npos);
  EXPECT_NE(parse_error(R"("\ud83d\u0041")").find("unpaired surrogate"), std::string::npos);
}

TEST(JsonTest, RejectsInvalidUtf8) {
  for (const char* bad : {"\"\xff\"", "\"\xc3\"", "\"\xc0\xaf\"", "\"\xe0\x80\xaf\"",
                          "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\x80\""}) {
    EXPECT_NE(parse_error(bad).find("invalid UTF-8"), std::string::npos) << bad;
  }
}

TEST(JsonTest, LimitsNestingDepth) {
  std::string ok = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  EXPECT_EQ(parse_error(ok), "");
  std::string deep = std::string(100000, '[');  // would overflow a naive recursive parser
  EXPECT_NE(parse_error(deep).find("nesting deeper than 64"), std::string::npos);
}

TEST(JsonTest, AppendQuotedRoundTrips) {
  std::string raw = std::string("a\"b\\c\n\t\x01 \xc3\xa9\0", 12);  // NUL included
  std::string quoted;
  append_quoted(&quoted, raw);
  EXPECT_EQ(quoted, "\"a\\\"b\\\\c\\n\\t\\u0001 \xc3\xa9\\u0000\"");
  EXPECT_EQ(parse(quoted).string(), raw);
}

}  // namespace
}  // namespace json
}  // namespace ember
