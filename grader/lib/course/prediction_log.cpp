#include "prediction_log.hpp"

#include "input_error.hpp"
#include "lab_aliases.hpp"
#include "source_hash.hpp"
#include "yaml_fields.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

namespace roofline {

namespace {

constexpr const char* kHeader =
    "# Roofline prediction log: append-only. `roofline predict` and `roofline grade` add\n"
    "# entries at the end, and `roofline explain` a gap note after a measurement. Do not\n"
    "# edit earlier entries: an edited prediction is detected.\n";

std::string number(double value) { return fmt::format("{:.6g}", value); }

// An entry's lab as the course names it now: a log written before the renumbering names the
// old folder (lab_aliases.hpp), read as the new one with a note; the file is left as it is.
std::string read_lab(const YamlView& e) { return resolve_lab_name(e.string("lab")); }

Prediction read_prediction(const YamlView& e) {
    e.only_keys({"kind", "id", "lab", "variant", "shape", "predicted_time_us", "given_as", "regime", "why",
                 "source_hash", "made_at", "predicted_dram_bytes"});
    Prediction p;
    p.line = e.line();
    p.id = e.string("id");
    p.lab_as_written = e.string("lab");
    p.lab = read_lab(e);
    p.variant = e.string("variant");
    p.shape = e.string("shape");
    p.predicted_time_s = e.positive("predicted_time_us") * 1e-6;
    p.given_as = e.string("given_as");
    auto regime = parse_regime(e.string("regime"));
    if (!regime) e.at("regime").fail("must be compute, memory or overhead");
    p.regime = *regime;
    p.why = e.string("why");
    p.source_hash = e.string("source_hash");
    p.made_at = e.string("made_at");
    if (e.has("predicted_dram_bytes")) p.predicted_dram_bytes = e.positive("predicted_dram_bytes");
    return p;
}

ProfileEntry read_profile(const YamlView& e) {
    e.only_keys({"kind", "prediction", "lab", "variant", "shape", "dram_bytes", "model_bytes", "gpu", "profiled_at",
                 "source_hash", "causes", "figures"});
    ProfileEntry p;
    p.line = e.line();
    if (e.has("prediction")) p.prediction_id = e.string("prediction");
    p.lab = read_lab(e);
    p.variant = e.string("variant");
    p.shape = e.string("shape");
    p.dram_bytes = e.at("dram_bytes").as_nonnegative_double();
    p.model_bytes = e.at("model_bytes").as_nonnegative_double();
    p.gpu = e.string("gpu");
    p.profiled_at = e.string("profiled_at");
    if (e.has("source_hash")) p.source_hash = e.string("source_hash");
    if (e.has("causes")) p.causes = e.at("causes").as_string_list();
    if (auto figures = e.maybe("figures")) {
        for (const auto& key : figures->keys()) p.figures[key] = figures->at(key).as_nonnegative_double();
    }
    return p;
}

// A CPU-graded part: correctness and points; a prediction only if one was measured.
Measurement read_cpu_grade(const YamlView& e, Measurement m) {
    if (e.has("prediction")) {
        m.prediction_id = e.string("prediction");
        m.prediction_digest = e.string("prediction_digest");
    }
    m.lab = read_lab(e);
    m.variant = e.string("variant");
    auto correct = e.string("correct");
    if (correct != "true" && correct != "false") e.at("correct").fail("must be true or false");
    m.correct = correct == "true";
    m.points = e.at("points").as_nonnegative_double();
    m.max_points = e.at("max_points").as_nonnegative_double();
    m.measured_at = e.string("measured_at");
    return m;
}

// `number`: its place among the measurements (1, 2, ...), which is its id; logs written
// before ids were written have none, and are numbered the same way.
Measurement read_measurement(const YamlView& e, std::size_t number) {
    e.only_keys({"kind", "id", "graded_on", "prediction", "prediction_digest", "lab", "variant", "shape",
                 "measured_time_us", "measured_regime", "correct", "fraction", "points", "max_points", "gpu",
                 "sm_clock_mhz", "measured_at"});
    Measurement m;
    m.line = e.line();
    m.id = fmt::format("m{}", number);
    if (e.has("id") && e.string("id") != m.id) {
        e.at("id").fail(fmt::format("must be {}: measurements are numbered in the order they were written (was an "
                                    "entry removed or moved? restore the log from your copy)", m.id));
    }
    if (e.has("graded_on")) {
        auto where = e.string("graded_on");
        if (where != "cpu" && where != "gpu") e.at("graded_on").fail("must be cpu or gpu");
        m.graded_on_cpu = where == "cpu";
    }
    if (m.graded_on_cpu) return read_cpu_grade(e, std::move(m));
    m.prediction_id = e.string("prediction");
    m.prediction_digest = e.string("prediction_digest");
    m.lab = read_lab(e);
    m.variant = e.string("variant");
    m.shape = e.string("shape");
    m.measured_time_s = e.at("measured_time_us").as_nonnegative_double() * 1e-6;
    auto regime = parse_regime(e.string("measured_regime"));
    if (!regime) e.at("measured_regime").fail("must be compute, memory or overhead");
    m.measured_regime = *regime;
    auto correct = e.string("correct");
    if (correct != "true" && correct != "false") e.at("correct").fail("must be true or false");
    m.correct = correct == "true";
    m.fraction = e.at("fraction").as_nonnegative_double();
    m.points = e.at("points").as_nonnegative_double();
    m.max_points = e.at("max_points").as_nonnegative_double();
    m.gpu = e.string("gpu");
    m.sm_clock_mhz = e.at("sm_clock_mhz").as_nonnegative_double();
    m.measured_at = e.string("measured_at");
    return m;
}

Diagnosis read_diagnosis(const YamlView& e) {
    e.only_keys({"kind", "lab", "variant", "cause", "why", "source_hash", "written_at", "predicted_tokens_per_s",
                 "report_digest"});
    Diagnosis d;
    d.line = e.line();
    d.lab = read_lab(e);
    d.variant = e.string("variant");
    d.cause = e.string("cause");
    d.why = e.string("why");
    d.source_hash = e.string("source_hash");
    d.written_at = e.string("written_at");
    if (e.has("predicted_tokens_per_s")) d.predicted_tokens_per_s = e.positive("predicted_tokens_per_s");
    if (e.has("report_digest")) d.report_digest = e.string("report_digest");
    return d;
}

GapNote read_gap_note(const YamlView& e, const std::vector<Measurement>& earlier) {
    e.only_keys({"kind", "measurement", "lab", "variant", "why", "written_at"});
    GapNote n;
    n.line = e.line();
    n.measurement_id = e.string("measurement");
    n.lab = read_lab(e);
    n.variant = e.string("variant");
    n.why = e.string("why");
    n.written_at = e.string("written_at");
    auto m = std::find_if(earlier.begin(), earlier.end(), [&](const Measurement& x) { return x.id == n.measurement_id; });
    if (m == earlier.end()) {
        e.at("measurement").fail(fmt::format("{} names no measurement above it (the log holds {} before this line); "
                                             "a gap note explains a measurement already in the log",
                                             n.measurement_id, earlier.empty() ? std::string("none")
                                                               : fmt::format("m1 to m{}", earlier.size())));
    }
    if (m->lab != n.lab || m->variant != n.variant) {
        e.at("measurement").fail(fmt::format("{} measured {}/{}, not {}/{}; name that measurement's lab and variant",
                                             n.measurement_id, m->lab, m->variant, n.lab, n.variant));
    }
    if (n.why.find_first_not_of(" \t") == std::string::npos) e.at("why").fail("is empty; write the explanation");
    return n;
}

// Every entry roofline appends is framed by these two comment lines, written with the
// entry in one write(). A write cut short (the command killed mid-write, a full disk)
// leaves a begin line without its end line, which the reader names instead of reading
// the half entry as an entry. Entries without the frame (logs written before it, or by
// hand) are read as before.
constexpr std::string_view kEntryBegins = "# entry begins";
constexpr std::string_view kEntryEnds = "# entry ends";

std::string_view trimmed_line(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    return line;
}

// A begin line with no end line before the next begin line or the end of the file.
void check_entries_complete(const std::string& text, const std::filesystem::path& file) {
    int line_number = 0, open_since = 0;
    auto cut_short = [&](int last_line) {
        throw InputError(file, open_since,
                         fmt::format("the entry from here to line {} was cut short (the command writing it was "
                                     "stopped mid-write, or its '{}' line was deleted); delete lines {} to {}, then "
                                     "run that command again",
                                     last_line, kEntryEnds, open_since, last_line));
    };
    std::size_t at = 0;
    while (at < text.size()) {
        auto end = text.find('\n', at);
        auto line = trimmed_line(std::string_view(text).substr(at, end == std::string::npos ? std::string::npos : end - at));
        ++line_number;
        if (line == kEntryBegins) {
            if (open_since) cut_short(line_number - 1);
            open_since = line_number;
        } else if (line == kEntryEnds) {
            open_since = 0;
        }
        if (end == std::string::npos) break;
        at = end + 1;
    }
    if (open_since) cut_short(line_number);
}

// The log must be a file in an existing folder; a missing file there is an empty log.
// A mistyped folder, or a folder given as the log, is reported rather than read as empty.
// Symbolic links are followed: the file they point at is the log, read and appended to
// in place (the link stays a link).
void check_log_path(const std::filesystem::path& file) {
    if (file.empty()) throw InputError("the prediction log's path is empty; give a file, e.g. --log predictions.yaml");
    auto folder = file.parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder)) {
        throw InputError(file, 0, fmt::format("the folder {} does not exist; check the path", folder.string()));
    }
    if (std::filesystem::is_directory(file)) {
        throw InputError(file, 0, "is a folder; give the log file's path, e.g. predictions.yaml inside it");
    }
}

std::string file_type_name(mode_t mode) {
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a pipe";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

void require_regular(const std::filesystem::path& file, const struct stat& st) {
    if (!S_ISREG(st.st_mode)) {
        throw InputError(file, 0, fmt::format("is {}, not a regular file; the log must be a file (e.g. predictions.yaml)",
                                              file_type_name(st.st_mode)));
    }
}

// Closes the descriptor when it goes out of scope; closing also drops its flock.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

std::string read_all(int fd, const std::filesystem::path& file) {
    std::string text;
    char buffer[1 << 16];
    off_t offset = 0;
    for (;;) {
        auto n = ::pread(fd, buffer, sizeof buffer, offset);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw InputError(file, 0, fmt::format("cannot be read ({})", std::strerror(errno)));
        if (n == 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
        offset += n;
    }
}

PredictionLog parse_log_text(const std::string& text, const std::filesystem::path& file) {
    PredictionLog log;
    log.file = file;
    check_entries_complete(text, file);
    auto root = YamlView::load_text(text, file);
    if (root.node().IsNull()) return log;  // only the header comment
    for (const auto& entry : root.items()) {
        auto kind = entry.string("kind");
        if (kind == "prediction") log.predictions.push_back(read_prediction(entry));
        else if (kind == "measurement") log.measurements.push_back(read_measurement(entry, log.measurements.size() + 1));
        else if (kind == "gap_note") log.gap_notes.push_back(read_gap_note(entry, log.measurements));
        else if (kind == "profile") log.profiles.push_back(read_profile(entry));
        else if (kind == "diagnosis") log.diagnoses.push_back(read_diagnosis(entry));
        else entry.at("kind").fail("must be prediction, measurement, gap_note, profile or diagnosis");
    }
    // Measurements name their prediction by id: two predictions with one id would make
    // every later lookup ambiguous.
    std::map<std::string, int> first_line;
    for (const auto& p : log.predictions) {
        auto [it, inserted] = first_line.emplace(p.id, p.line);
        if (!inserted) {
            throw InputError(file, p.line,
                             fmt::format("prediction id {} is used twice (first at line {}); ids are unique, so this "
                                         "entry was copied or renumbered by hand: remove it or restore the log",
                                         p.id, it->second));
        }
    }
    return log;
}

PredictionLog parse_log(const std::filesystem::path& file) {
    check_log_path(file);
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {
        if (errno == ENOENT) {
            PredictionLog log;
            log.file = file;
            return log;
        }
        throw InputError(file, 0, fmt::format("cannot be read ({})", std::strerror(errno)));
    }
    require_regular(file, st);  // before opening: a pipe would block the read
    FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) throw InputError(file, 0, fmt::format("cannot be read ({})", std::strerror(errno)));
    if (::fstat(fd.get(), &st) != 0) throw InputError(file, 0, fmt::format("cannot be read ({})", std::strerror(errno)));
    require_regular(file, st);  // it may have been swapped since the stat above
    return parse_log_text(read_all(fd.get(), file), file);
}

// Opens the log for appending, creating it (empty) when missing: a regular file we may
// write, else a one-line refusal. Never replaces the file, so its inode, hard links,
// owner and mode stay as they were.
int open_for_append(const std::filesystem::path& file) {
    check_log_path(file);
    struct stat st {};
    if (::stat(file.c_str(), &st) == 0) {
        require_regular(file, st);
        // The mode, not only open(): root may write a chmod 444 file, but a read-only log
        // was made so on purpose.
        if ((st.st_mode & 0222) == 0) {
            throw InputError(file, 0, fmt::format("is read-only (mode {:04o}); make it writable (chmod u+w) or give "
                                                  "another --log", st.st_mode & 07777));
        }
    }
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        int error = errno;
        if (error == EACCES || error == EPERM || error == EROFS) {
            throw InputError(file, 0, fmt::format("cannot be written ({}); check its permissions and its folder's, or "
                                                  "give another --log", std::strerror(error)));
        }
        throw InputError(file, 0, fmt::format("cannot be opened for writing ({})", std::strerror(error)));
    }
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError(file, 0, "is not a regular file; the log must be a file (e.g. predictions.yaml)");
    }
    return fd;
}

// Writes all of `text` at the end of the file; on failure, cuts the file back to
// `old_size` so no part of the entry stays.
void append_bytes(int fd, off_t old_size, const std::string& text, const std::filesystem::path& file) {
    std::size_t written = 0;
    while (written < text.size()) {
        auto n = ::pwrite(fd, text.data() + written, text.size() - written, old_size + static_cast<off_t>(written));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int error = n < 0 ? errno : EIO;
            if (::ftruncate(fd, old_size) != 0) {
                throw InputError(file, 0, fmt::format("write failed ({}) and the partial entry could not be removed; "
                                                      "the log reports it as cut short", std::strerror(error)));
            }
            throw InputError(file, 0, fmt::format("write failed ({}); the log was left as it was", std::strerror(error)));
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        throw InputError(file, 0, fmt::format("the entry was written but could not be flushed to disk ({})",
                                              std::strerror(errno)));
    }
}

// Appends one entry in place: under an exclusive flock on the log file itself (released
// when the descriptor closes, even if the process is killed: nothing is left beside
// the log), re-reads the log (it must parse), then writes the new entry, framed, with
// one write at the end of the file. The new text is read back with the loader before
// it is written: an entry the loader would refuse (a 'nan' time, say) would lock every
// later command out.
template <class Emit>
void append_entry(const std::filesystem::path& file, Emit emit_entry) {
    // The entry's text after `old_text`, read back with the loader before anything is written.
    auto compose = [&](const std::string& old_text, const PredictionLog& log) {
        YAML::Emitter out;
        out << YAML::BeginSeq << YAML::BeginMap;
        emit_entry(out, log);
        out << YAML::EndMap << YAML::EndSeq;
        std::string addition;
        if (!old_text.empty() && old_text.back() != '\n') addition = "\n";
        if (old_text.find_first_not_of(" \t\r\n") == std::string::npos) addition += kHeader;  // a new log
        addition += fmt::format("{}\n{}\n{}\n", kEntryBegins, out.c_str(), kEntryEnds);
        try {
            parse_log_text(old_text + addition, file);
        } catch (const InputError& e) {
            throw InputError(fmt::format("{}: the new entry would not read back ({}); nothing was written",
                                         file.string(), e.what()));
        }
        return addition;
    };
    check_log_path(file);
    // A log that does not exist yet is created only for an entry that reads back: a refused
    // command leaves no empty file behind.
    std::error_code error;
    if (!std::filesystem::exists(std::filesystem::symlink_status(file, error))) {
        PredictionLog empty;
        empty.file = file;
        compose("", empty);
    }
    FileDescriptor fd(open_for_append(file));
    while (::flock(fd.get(), LOCK_EX) != 0) {
        if (errno != EINTR) throw InputError(file, 0, fmt::format("cannot be locked ({})", std::strerror(errno)));
    }
    auto old_text = read_all(fd.get(), file);
    auto addition = compose(old_text, parse_log_text(old_text, file));
    append_bytes(fd.get(), static_cast<off_t>(old_text.size()), addition, file);
}

// The next free id: one past the highest pN in the log (ids stay unique even where an
// entry was removed by hand).
std::string next_prediction_id(const PredictionLog& log) {
    std::size_t highest = log.predictions.size();
    for (const auto& p : log.predictions) {
        if (p.id.size() > 1 && p.id[0] == 'p' && p.id.find_first_not_of("0123456789", 1) == std::string::npos &&
            p.id.size() < 12) {
            highest = std::max<std::size_t>(highest, std::stoull(p.id.substr(1)));
        }
    }
    return fmt::format("p{}", highest + 1);
}

}  // namespace

std::string Prediction::digest() const {
    // The byte prediction joins the fingerprint only when there is one: older entries keep theirs.
    // The lab as the entry was written: an old name (lab_aliases.hpp) keeps the digest it was measured with.
    return fnv1a64_hex(fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}{}", id, lab_as_written.empty() ? lab : lab_as_written, variant, shape, number(predicted_time_s * 1e6),
                                   given_as, regime_name(regime), why, source_hash, made_at,
                                   predicted_dram_bytes ? "|" + number(*predicted_dram_bytes) : ""));
}

const Prediction* PredictionLog::find_current(const std::string& lab, const std::string& variant,
                                              const std::string& shape, const std::string& source_hash) const {
    for (auto it = predictions.rbegin(); it != predictions.rend(); ++it) {
        if (it->lab == lab && it->variant == variant && it->shape == shape && it->source_hash == source_hash) return &*it;
    }
    return nullptr;
}

const Prediction* PredictionLog::find_by_id(const std::string& id) const {
    for (const auto& p : predictions) {
        if (p.id == id) return &p;
    }
    return nullptr;
}

bool PredictionLog::edited_after_measurement(const Prediction& prediction) const {
    auto digest = prediction.digest();
    for (const auto& m : measurements) {
        if (m.prediction_id == prediction.id && m.prediction_digest != digest) return true;
    }
    return false;
}

const Measurement* PredictionLog::latest_graded(const std::string& lab, const std::string& variant) const {
    for (auto it = measurements.rbegin(); it != measurements.rend(); ++it) {
        if (it->lab == lab && it->variant == variant && it->correct) return &*it;
    }
    return nullptr;
}

std::vector<const GapNote*> PredictionLog::notes_for(const std::string& measurement_id) const {
    std::vector<const GapNote*> notes;
    for (const auto& n : gap_notes) {
        if (n.measurement_id == measurement_id) notes.push_back(&n);
    }
    return notes;
}

PredictionLog load_log(const std::filesystem::path& file) { return parse_log(file); }

Prediction append_prediction(const std::filesystem::path& file, Prediction p) {
    p.lab_as_written.clear();  // written under p.lab, whatever the entry it was copied from said
    append_entry(file, [&](YAML::Emitter& out, const PredictionLog& log) {
        p.id = next_prediction_id(log);
        out << YAML::Key << "kind" << YAML::Value << "prediction";
        out << YAML::Key << "id" << YAML::Value << p.id;
        out << YAML::Key << "lab" << YAML::Value << p.lab;
        out << YAML::Key << "variant" << YAML::Value << p.variant;
        out << YAML::Key << "shape" << YAML::Value << p.shape;
        out << YAML::Key << "predicted_time_us" << YAML::Value << number(p.predicted_time_s * 1e6);
        out << YAML::Key << "given_as" << YAML::Value << YAML::DoubleQuoted << p.given_as;
        out << YAML::Key << "regime" << YAML::Value << std::string(regime_name(p.regime));
        out << YAML::Key << "why" << YAML::Value << YAML::DoubleQuoted << p.why;
        out << YAML::Key << "source_hash" << YAML::Value << p.source_hash;
        out << YAML::Key << "made_at" << YAML::Value << p.made_at;
        if (p.predicted_dram_bytes) {
            out << YAML::Key << "predicted_dram_bytes" << YAML::Value << number(*p.predicted_dram_bytes);
        }
    });
    return p;
}

ProfileEntry append_profile(const std::filesystem::path& file, ProfileEntry p) {
    append_entry(file, [&](YAML::Emitter& out, const PredictionLog&) {
        out << YAML::Key << "kind" << YAML::Value << "profile";
        if (!p.prediction_id.empty()) out << YAML::Key << "prediction" << YAML::Value << p.prediction_id;
        out << YAML::Key << "lab" << YAML::Value << p.lab;
        out << YAML::Key << "variant" << YAML::Value << p.variant;
        out << YAML::Key << "shape" << YAML::Value << p.shape;
        out << YAML::Key << "dram_bytes" << YAML::Value << number(p.dram_bytes);
        out << YAML::Key << "model_bytes" << YAML::Value << number(p.model_bytes);
        out << YAML::Key << "gpu" << YAML::Value << YAML::DoubleQuoted << p.gpu;
        out << YAML::Key << "profiled_at" << YAML::Value << p.profiled_at;
        if (!p.source_hash.empty()) out << YAML::Key << "source_hash" << YAML::Value << p.source_hash;
        if (!p.causes.empty()) out << YAML::Key << "causes" << YAML::Value << YAML::Flow << p.causes;
        if (!p.figures.empty()) {
            out << YAML::Key << "figures" << YAML::Value << YAML::Flow << YAML::BeginMap;
            for (const auto& [name, value] : p.figures) out << YAML::Key << name << YAML::Value << number(value);
            out << YAML::EndMap;
        }
    });
    return p;
}

Measurement append_measurement(const std::filesystem::path& file, Measurement m) {
    append_entry(file, [&](YAML::Emitter& out, const PredictionLog& log) {
        m.id = fmt::format("m{}", log.measurements.size() + 1);
        out << YAML::Key << "kind" << YAML::Value << "measurement";
        out << YAML::Key << "id" << YAML::Value << m.id;
        if (m.graded_on_cpu) {
            out << YAML::Key << "graded_on" << YAML::Value << "cpu";
            if (!m.prediction_id.empty()) {
                out << YAML::Key << "prediction" << YAML::Value << m.prediction_id;
                out << YAML::Key << "prediction_digest" << YAML::Value << m.prediction_digest;
            }
            out << YAML::Key << "lab" << YAML::Value << m.lab;
            out << YAML::Key << "variant" << YAML::Value << m.variant;
            out << YAML::Key << "correct" << YAML::Value << (m.correct ? "true" : "false");
            out << YAML::Key << "points" << YAML::Value << number(m.points);
            out << YAML::Key << "max_points" << YAML::Value << number(m.max_points);
            out << YAML::Key << "measured_at" << YAML::Value << m.measured_at;
            return;
        }
        out << YAML::Key << "prediction" << YAML::Value << m.prediction_id;
        out << YAML::Key << "prediction_digest" << YAML::Value << m.prediction_digest;
        out << YAML::Key << "lab" << YAML::Value << m.lab;
        out << YAML::Key << "variant" << YAML::Value << m.variant;
        out << YAML::Key << "shape" << YAML::Value << m.shape;
        out << YAML::Key << "measured_time_us" << YAML::Value << number(m.measured_time_s * 1e6);
        out << YAML::Key << "measured_regime" << YAML::Value << std::string(regime_name(m.measured_regime));
        out << YAML::Key << "correct" << YAML::Value << (m.correct ? "true" : "false");
        out << YAML::Key << "fraction" << YAML::Value << number(m.fraction);
        out << YAML::Key << "points" << YAML::Value << number(m.points);
        out << YAML::Key << "max_points" << YAML::Value << number(m.max_points);
        out << YAML::Key << "gpu" << YAML::Value << YAML::DoubleQuoted << m.gpu;
        out << YAML::Key << "sm_clock_mhz" << YAML::Value << number(m.sm_clock_mhz);
        out << YAML::Key << "measured_at" << YAML::Value << m.measured_at;
    });
    return m;
}

Measurement record_cpu_grade(const std::filesystem::path& file, const std::string& lab, const std::string& variant,
                             bool correct, double points, double max_points) {
    Measurement m;
    m.graded_on_cpu = true;
    m.lab = lab;
    m.variant = variant;
    m.correct = correct;
    m.points = points;
    m.max_points = max_points;
    m.measured_at = utc_now_iso8601();
    return append_measurement(file, m);
}

GapNote append_gap_note(const std::filesystem::path& file, GapNote n) {
    append_entry(file, [&](YAML::Emitter& out, const PredictionLog&) {
        out << YAML::Key << "kind" << YAML::Value << "gap_note";
        out << YAML::Key << "measurement" << YAML::Value << n.measurement_id;
        out << YAML::Key << "lab" << YAML::Value << n.lab;
        out << YAML::Key << "variant" << YAML::Value << n.variant;
        out << YAML::Key << "why" << YAML::Value << YAML::DoubleQuoted << n.why;
        out << YAML::Key << "written_at" << YAML::Value << n.written_at;
    });
    return n;
}

Diagnosis append_diagnosis(const std::filesystem::path& file, Diagnosis d) {
    append_entry(file, [&](YAML::Emitter& out, const PredictionLog&) {
        out << YAML::Key << "kind" << YAML::Value << "diagnosis";
        out << YAML::Key << "lab" << YAML::Value << d.lab;
        out << YAML::Key << "variant" << YAML::Value << d.variant;
        out << YAML::Key << "cause" << YAML::Value << d.cause;
        out << YAML::Key << "why" << YAML::Value << YAML::DoubleQuoted << d.why;
        out << YAML::Key << "source_hash" << YAML::Value << d.source_hash;
        out << YAML::Key << "written_at" << YAML::Value << d.written_at;
        if (d.predicted_tokens_per_s)
            out << YAML::Key << "predicted_tokens_per_s" << YAML::Value << number(*d.predicted_tokens_per_s);
        if (!d.report_digest.empty()) out << YAML::Key << "report_digest" << YAML::Value << d.report_digest;
    });
    return d;
}

std::string utc_now_iso8601() {
    auto now = std::chrono::system_clock::now();
    return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
}

}  // namespace roofline
