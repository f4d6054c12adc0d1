// A shared library that is not a ptir plugin: it exports no ptir_plugin_info.
extern "C" int not_a_ptir_plugin() { return 42; }
