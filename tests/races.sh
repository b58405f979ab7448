# sourced by tests/run.sh: the static race check against the emulator on
# random programs with every `sync` removed (so that many race): each race
# `tilepx check` reports must be one ptxemu meets too when it runs the
# emitted PTX (no false alarm), and enough programs must race for this to
# mean something. (The converse does not hold exactly: ptxemu runs a warp's
# lanes one after another, so a lane may read a byte its own warp rewrites
# later in the same statement, which the check, at warp granularity, does
# not count.) check_race_random is in tests/lib.sh.
echo "== races: random programs get no race warning with their syncs, and without them each one tilepx check gives is confirmed by ptxemu"
R=$OUT/races; mkdir -p "$R"
"$B/randtile" 20261124 100 "$R" > /dev/null || bad "randtile failed"
# one check over all programs with their syncs, one after removing them
"$T" check "$R"/*.tile > "$R/synced.log" 2>&1
split_diags "$R/synced.log" .synced
sed -i '/^sync$/d' "$R"/*.tile
"$T" check "$R"/*.tile > "$R/unsynced.log" 2>&1
split_diags "$R/unsynced.log" .unsynced
run_each check_race_random "$R"/*.tile
nr=${tags[races]:-0}
echo "  $nr of 100 programs race"
[ $nr -ge 5 ] && ok || bad "races: only $nr random programs race without their syncs: the check or the generator drifted"
