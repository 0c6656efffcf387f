// Finds a function in a library this process has loaded, by reading the library's ELF
// symbol table by hand (dl_iterate_phdr and the file): no dlopen or dlsym in the object,
// so the link-time check has nothing to see. For the fixtures that reach cuBLAS this way.
#pragma once
#include <elf.h>
#include <link.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Library {
    const char* name_part;
    std::string path;
    ElfW(Addr) base = 0;
};

int find_library(dl_phdr_info* info, std::size_t, void* data) {
    auto* library = static_cast<Library*>(data);
    if (info->dlpi_name && std::strstr(info->dlpi_name, library->name_part)) {
        library->path = info->dlpi_name;
        library->base = info->dlpi_addr;
        return 1;
    }
    return 0;
}

void* find_function(const char* library_part, const char* name) {
    Library library{library_part};
    dl_iterate_phdr(find_library, &library);
    if (library.path.empty()) return nullptr;
    std::ifstream in(library.path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto* header = reinterpret_cast<const ElfW(Ehdr)*>(bytes.data());
    auto* sections = reinterpret_cast<const ElfW(Shdr)*>(bytes.data() + header->e_shoff);
    for (int i = 0; i < header->e_shnum; ++i) {
        if (sections[i].sh_type != SHT_DYNSYM) continue;
        auto* symbols = reinterpret_cast<const ElfW(Sym)*>(bytes.data() + sections[i].sh_offset);
        const char* names = bytes.data() + sections[sections[i].sh_link].sh_offset;
        for (std::size_t s = 0; s < sections[i].sh_size / sizeof(ElfW(Sym)); ++s) {
            if (symbols[s].st_value != 0 && std::strcmp(names + symbols[s].st_name, name) == 0)
                return reinterpret_cast<void*>(library.base + symbols[s].st_value);
        }
    }
    return nullptr;
}

}  // namespace
