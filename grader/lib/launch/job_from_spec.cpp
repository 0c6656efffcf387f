#include "job_from_spec.hpp"

namespace roofline {

protocol::Job lab_job(const LabSpec& lab, const VariantSpec& variant, protocol::JobMode mode, std::uint64_t seed,
                      const std::filesystem::path& result_file, double time_cap_s) {
    const auto& tol = lab.tolerance_for(variant);
    protocol::Job job;
    job.mode = mode;
    job.variant = variant.name;
    job.seed = seed;
    job.atol = tol.atol;
    job.rtol = tol.rtol;
    job.max_rel_l2 = tol.max_rel_l2;
    job.time_cap_s = time_cap_s;
    job.launch_timeout_s = lab.launch_timeout_s;
    job.result_path = result_file.string();
    return job;
}

}  // namespace roofline
