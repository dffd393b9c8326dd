// The one source of the targets that build the precompiled Qt headers (PrecompiledQt.cmake).
