# One ctest per check-equiv pair of corpus/equiv and ../shared/spec/examples/equiv: each runs
# tests/verify/check_pair.sh, which compares `ptir check-equiv`'s verdict (first output word and exit
# code) with the `// EXPECT:` line of the pair's source file. A pair expected PROVED or REFUTED gets a
# 120 s check-equiv budget (an UNKNOWN fails it), a NOT PROVED pair the default 10 s (check_pair.sh).
file(GLOB PTIR_EQUIV_CORPUS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/corpus/equiv/*.src.ptir)
file(GLOB PTIR_EQUIV_SPEC CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/../shared/spec/examples/equiv/*.src.ptir)
foreach(src ${PTIR_EQUIV_CORPUS} ${PTIR_EQUIV_SPEC})
  get_filename_component(name ${src} NAME)
  string(REPLACE ".src.ptir" "" name ${name})
  if(src MATCHES "/shared/spec/examples/")
    set(name equiv/spec/${name})
  else()
    set(name equiv/corpus/${name})
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_pair.sh $<TARGET_FILE:ptir> ${src})
  set_tests_properties(${name} PROPERTIES LABELS equiv TIMEOUT 180)
endforeach()
