#!/bin/sh
# Checks that grader/lib's layers include one way only (grader/README.md, "lib/, in layers").
#
#   check_layers.sh LIB_DIR NAME:LOWER[,LOWER...] ...
#
# Each NAME is a folder of LIB_DIR holding one layer; LOWER are the layers its library links
# (lib/CMakeLists.txt passes them), so it may include its own files and those of every layer
# reachable down through them. Fails, naming file:line, on
#   - an `#include "..."` that reaches a file of a layer it may not include, by its name (the
#     layers' folders are include paths) or by a relative path ("../grading/grade.hpp", which
#     the compiler would find without any include path);
#   - a file name in two layers (an include of it would depend on the include path's order);
#   - a source file or folder in LIB_DIR that is not in a declared layer.
# Includes of files outside LIB_DIR (protocol/, problems/, libraries) are the compiler's to
# check: each layer's include path holds only what it may see.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 LIB_DIR NAME:LOWER[,LOWER...] ..." >&2
    exit 2
fi
lib=$1
shift
cd "$lib"

layers=""
for spec in "$@"; do layers="$layers ${spec%%:*}"; done

status=0
# Anything at the top of LIB_DIR that is neither a declared layer nor the build's own files.
for entry in *; do
    case " $layers " in *" $entry "*) continue ;; esac
    case "$entry" in CMakeLists.txt | check_layers.sh) continue ;; esac
    echo "$lib/$entry: not in a layer; move it into the layer folder it belongs to (grader/README.md lists them)"
    status=1
done

# Every source file as LAYER/NAME, and every include as LAYER/NAME:LINE:#include "...".
for layer in $layers; do
    [ -d "$layer" ] && continue
    echo "$lib/$layer: declared as a layer in lib/CMakeLists.txt but there is no such folder"
    exit 1
done
files=$(for layer in $layers; do
    find "$layer" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.cuh' -o -name '*.cu' \) | sort
done)
# shellcheck disable=SC2086
includes=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files /dev/null || true)

printf '%s\n' "$@" | awk -v lib="$lib" -v files="$files" -v includes="$includes" '
function normalize(path,    n, parts, out, k, i) {  # collapses "." and "..", as the compiler would
    n = split(path, parts, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "." || parts[i] == "") continue
        if (parts[i] == "..") { if (k > 0) k--; else return ""; continue }
        out[++k] = parts[i]
    }
    path = ""
    for (i = 1; i <= k; i++) path = path (i > 1 ? "/" : "") out[i]
    return path
}
{   # NAME:LOWER,LOWER
    name = $0; sub(/:.*/, "", name)
    lowers = $0; sub(/^[^:]*:/, "", lowers)
    direct[name] = lowers; order[++layer_count] = name
}
END {
    # May include: itself and the closure of its lowers.
    for (l = 1; l <= layer_count; l++) {
        name = order[l]; delete seen; queue_n = 0
        seen[name] = 1; queue[++queue_n] = name
        for (q = 1; q <= queue_n; q++) {
            count = split(direct[queue[q]], below, ",")
            for (b = 1; b <= count; b++) {
                if (below[b] == "" || (below[b] in seen)) continue
                if (!(below[b] in direct)) { print lib ": layer " queue[q] " sits on " below[b] ", which is not a layer"; bad = 1; continue }
                seen[below[b]] = 1; queue[++queue_n] = below[b]
            }
        }
        list = ""
        for (s in seen) { allowed[name, s] = 1 }
        for (m = 1; m <= layer_count; m++) if ((name, order[m]) in allowed) list = list (list == "" ? "" : ", ") order[m]
        allowed_list[name] = list
    }
    n = split(files, file_list, "\n")
    for (i = 1; i <= n; i++) {
        path = file_list[i]; if (path == "") continue
        known[path] = 1
        base = path; sub(/.*\//, "", base)
        layer = path; sub(/\/.*/, "", layer)
        if (base in name_layer) {
            print lib "/" path ": the name " base " is also " lib "/" name_path[base] "; rename one (an include of it would depend on the order of the include path)"
            bad = 1
        }
        name_layer[base] = layer; name_path[base] = path
    }
    n = split(includes, include_list, "\n")
    for (i = 1; i <= n; i++) {
        line = include_list[i]; if (line == "") continue
        # FILE:LINE:#include "TARGET"
        from = line; sub(/:.*/, "", from)
        rest = substr(line, length(from) + 2); number = rest; sub(/:.*/, "", number)
        target = rest; sub(/^[^"]*"/, "", target); sub(/".*/, "", target)
        from_layer = from; sub(/\/.*/, "", from_layer)
        from_dir = from; sub(/\/[^\/]*$/, "", from_dir)
        relative = normalize(from_dir "/" target)
        if (relative != "" && (relative in known)) { to = relative }
        else if (index(target, "/") == 0 && (target in name_layer)) { to = name_path[target] }
        else continue  # not a file of lib/: the include path decides
        to_layer = to; sub(/\/.*/, "", to_layer)
        if ((from_layer, to_layer) in allowed) continue
        print lib "/" from ":" number ": includes " target " (lib/" to ", layer " to_layer "); layer " from_layer \
              " may include only " allowed_list[from_layer] ". Move what it needs down into a layer it may include, or this file up."
        bad = 1
    }
    exit bad
}' || status=1
exit $status
