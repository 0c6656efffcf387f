// Where things live in a course checkout, so every command agrees.
#pragma once
#include "lab_aliases.hpp"

#include <filesystem>
#include <string>

namespace roofline {

struct Workspace {
    std::filesystem::path root;       // hardware/, labs/, solutions/, lessons/
    std::filesystem::path build_dir;  // CMake's build folder

    std::filesystem::path labs_dir() const { return root / "labs"; }
    std::filesystem::path lab_yaml(const std::string& lab) const { return labs_dir() / lab / "lab.yaml"; }
    // Where the kernel files are read from: labs/LAB or solutions/LAB.
    std::filesystem::path kernels_root(const std::string& lab, bool solutions) const {
        return root / (solutions ? "solutions" : "labs") / lab;
    }
    // The kernel source a variant is built from: solutions/ falls back to labs/ for
    // given code, which exists only in labs/.
    std::filesystem::path kernel_file(const std::string& lab, bool solutions,
                                      const std::filesystem::path& file) const {
        auto path = kernels_root(lab, solutions) / file;
        if (solutions && !std::filesystem::exists(path)) return kernels_root(lab, false) / file;
        return path;
    }
    std::string lab_target(const std::string& lab, bool solutions) const {
        return (solutions ? "solution-" : "lab-") + lab;
    }
    std::filesystem::path lab_executable(const std::string& lab, bool solutions) const {
        return build_dir / "labs" / lab_target(lab, solutions);
    }
    // A lab's CPU-graded part (lab 05's layout library): its own host program (cpu_grade.hpp).
    std::string cpu_target(const std::string& lab, bool solutions) const { return lab_target(lab, solutions) + "-cpu"; }
    std::filesystem::path cpu_executable(const std::string& lab, bool solutions) const {
        return build_dir / "labs" / cpu_target(lab, solutions);
    }
    std::filesystem::path default_log() const { return root / "predictions.yaml"; }
    std::filesystem::path state_dir() const { return root / ".roofline"; }
    std::filesystem::path measured_ceilings(const std::string& profile_id) const {
        return state_dir() / "ceilings" / (profile_id + ".yaml");
    }
    // Module 10: the record of the last `roofline serve` of a configuration (incident_report.hpp),
    // by the configuration's name (incident-b), and the pictures `roofline diagnose` draws beside it.
    std::filesystem::path serve_dir() const { return state_dir() / "serve"; }
    std::filesystem::path serve_record(const std::string& config_name) const { return serve_dir() / (config_name + ".json"); }
    // Where a lab keeps its incident configurations: labs/LAB/server/incidents/NAME.yaml.
    std::filesystem::path incident_config(const std::string& lab, const std::string& name) const {
        return labs_dir() / lab / "server" / "incidents" / (name + ".yaml");
    }
    std::filesystem::path incident_key(const std::string& lab) const {
        return root / "instructor" / "incidents" / (lab + ".yaml");
    }
    std::filesystem::path results_dir(const std::string& lab, bool solutions) const {
        return state_dir() / "results" / lab / (solutions ? "solutions" : "labs");
    }
    // A variant's saved grade: under results_dir, else where a checkout graded before the
    // renumbering saved it, under the lab's old name (lab_aliases.hpp).
    std::filesystem::path saved_grade(const std::string& lab, bool solutions, const std::string& variant) const {
        auto file = results_dir(lab, solutions) / (variant + ".json");
        if (auto old = former_lab_name(lab); old && !std::filesystem::exists(file)) {
            auto before = results_dir(*old, solutions) / (variant + ".json");
            if (std::filesystem::exists(before)) return before;
        }
        return file;
    }
};

}  // namespace roofline
