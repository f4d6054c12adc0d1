# Writes OUT: a C++ file holding every patterns/rules/*.rules file as a string (the built-in library is
# compiled from the rule files, embedded at build time). Run with -DSRC=<dir> -DOUT=<file>.
file(GLOB files ${SRC}/*.rules)
list(SORT files)
set(body "// Generated from patterns/rules/*.rules by patterns/embed_rules.cmake. Do not edit.\n#include \"patterns/library.h\"\nnamespace ptir {\nconst EmbeddedRuleFile kEmbeddedRuleFiles[] = {\n")
set(count 0)
foreach(f ${files})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" text "${text}")
  # Split the escaped text into chunks so no line gets huge, and so a hex escape never runs into the next char.
  string(REGEX REPLACE "((\\\\x[0-9a-f][0-9a-f]){64})" "\\1\"\n\"" text "${text}")
  string(APPEND body "  {\"patterns/rules/${name}\", std::string_view(\"${text}\", sizeof(\"${text}\") - 1)},\n")
  math(EXPR count "${count} + 1")
endforeach()
string(APPEND body "};\nconst size_t kNumEmbeddedRuleFiles = ${count};\n}  // namespace ptir\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
