# ptir_add_plugin: builds a pattern plugin (patterns/plugin.h, docs/embedding.md). Installed with ptir
# and included by ptirConfig.cmake; ptir's own tests use it from the source tree.
#
#   ptir_add_plugin(<target> SOURCES <file.cpp>... [RULES <file.rules>...])
#
# makes a MODULE library lib<target>.so linked against ptir::plugin only (headers: the plugin resolves
# ptir's symbols against the `ptir` that loads it). RULES files are embedded at build time into the
# generated header "ptir_plugin_rules.h", which defines
#   inline constexpr std::pair<std::string_view, std::string_view> kPluginRuleFiles[] = {{"NAME.rules", "TEXT"}, ...};
# for the registration function to pass to PluginRegistry::add_rule_text.
set(_PTIR_PLUGIN_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(ptir_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;RULES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "ptir_add_plugin(${target}): SOURCES is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ptir_add_plugin(${target}): unexpected arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  if(ARG_RULES)
    set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_rules)
    set(header ${gen_dir}/ptir_plugin_rules.h)
    set(rule_files)
    foreach(f ${ARG_RULES})
      get_filename_component(abs ${f} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
      list(APPEND rule_files ${abs})
    endforeach()
    string(REPLACE ";" "|" rule_arg "${rule_files}")
    add_custom_command(
      OUTPUT ${header}
      COMMAND ${CMAKE_COMMAND} "-DFILES=${rule_arg}" -DOUT=${header} -P ${_PTIR_PLUGIN_DIR}/ptirEmbedRules.cmake
      DEPENDS ${rule_files} ${_PTIR_PLUGIN_DIR}/ptirEmbedRules.cmake
      COMMENT "Embedding the rule files of plugin ${target}")
    target_sources(${target} PRIVATE ${header})
    target_include_directories(${target} PRIVATE ${gen_dir})
  endif()
  # Default visibility on purpose: ptir's headers carry no visibility attributes, so a plugin compiled
  # with -fvisibility=hidden would bind ptir's functions as if they were its own and fail to link.
  target_link_libraries(${target} PRIVATE ptir::plugin)
  set_target_properties(${target} PROPERTIES PREFIX "lib")
endfunction()
