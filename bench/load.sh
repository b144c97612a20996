# Shared by the scripts that measure beside a loaded machine: busy loops and their end.
# Sourced; `trap unload EXIT` in the script ends the loops with it.
busy=()
# load [CORE]: a busy loop on each core, or one pinned to CORE.
load() {
    if [ $# -gt 0 ]; then
        taskset -c "$1" bash -c 'while :; do :; done' &
        busy+=($!)
        return
    fi
    for _ in $(seq "$(nproc)"); do
        (while :; do :; done) &
        busy+=($!)
    done
}
unload() {
    [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null || true
    busy=()
}
