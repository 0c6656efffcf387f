// The lab-list CTest (label cpu; one per lab program, added by roofline_add_lab):
// the variants a lab program registers, as its `--list` prints them (no GPU needed),
// must be the ones its lab.yaml describes: the same names, and for each the same op,
// dtype and kernel file. A mismatch fails with the lab.yaml line and the fix.
//
//   roofline_lab_list_check labs/03-gemm/lab.yaml build/labs/lab-03-gemm
#include "file_text.hpp"
#include "input_error.hpp"
#include "lab_spec.hpp"
#include "process.hpp"
#include "variant_registration.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: roofline_lab_list_check LAB.YAML LAB_PROGRAM\n";
        return 2;
    }
    const fs::path lab_yaml = argv[1], program = argv[2];
    try {
        auto lab = roofline::load_lab(lab_yaml);
        if (!fs::exists(program)) {
            std::cerr << fmt::format("{}: not built; build it first: cmake --build BUILD --target {}\n",
                                     program.string(), program.filename().string());
            return 1;
        }
        auto work_dir = fs::temp_directory_path() / fmt::format("roofline-lab-list-{}", ::getpid());
        fs::create_directories(work_dir);
        roofline::ProcessSpec spec;
        spec.argv = {fs::absolute(program).string(), "--list"};
        spec.work_dir = work_dir;
        spec.output_file = work_dir / "list.json";
        spec.error_file = work_dir / "list.err";
        spec.limits.timeout_s = 60;
        auto run = roofline::run_process(spec);
        auto output = roofline::read_file_text(spec.output_file);
        auto errors = roofline::file_tail(spec.error_file);
        fs::remove_all(work_dir);
        if (!run.ok()) {
            std::cerr << fmt::format("{} --list failed ({}): {}\n", program.string(),
                                     run.timed_out ? "timed out"
                                     : run.signal   ? fmt::format("signal {}", run.signal)
                                                    : fmt::format("exit {}", run.exit_code),
                                     errors);
            return 1;
        }
        auto listing = nlohmann::json::parse(output, nullptr, false);
        auto problems = roofline::listing_mismatches(lab, listing, program.filename().string());
        for (const auto& p : problems) std::cout << p << "\n";
        if (!problems.empty()) return 1;
        std::cout << fmt::format("{}: the {} variants of {} match its lab.yaml (name, op, dtype, file)\n",
                                 program.filename().string(), lab.variants.size(), lab.id);
        return 0;
    } catch (const std::exception& e) {  // lab.yaml's InputError names its file and line
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
