# Sourced by tests/run.sh: the set-up, the per-file checks and the job runner.
# Each check_X FILE below is everything one section checks about one file;
# the section runs it on every file its globs (CHECK_FILES) find, and
# `make test T=FILE.tile` runs every check whose globs match FILE, so the two
# cannot drift. A check reports with ok and bad (bad's message names the
# file), writes scratch files under $S only, and reports nothing when it does
# not apply to the file.
B=${TILEPX_BUILD:-build}
T=$B/tilepx
PTXAS=${PTXAS:-}
if [ -z "$PTXAS" ]; then
	PTXAS=$(command -v ptxas || true)
	[ -z "$PTXAS" ] && [ -x /usr/local/cuda/bin/ptxas ] && PTXAS=/usr/local/cuda/bin/ptxas
fi
if [ -z "$PTXAS" ] || [ ! -x "$PTXAS" ]; then
	echo "tests: ptxas not found (set PTXAS, put it on PATH, or install CUDA in /usr/local/cuda)" >&2
	exit 1
fi
# python3 through a version manager's shim (pyenv's is a bash script) costs about
# 0.5 s of CPU a call before Python starts: the interpreter it resolves to goes
# first on PATH, for the suite's python3 calls and the scripts they run
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] && PATH=${py%/*}:$PATH
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
S=$OUT                 # a check's scratch directory (run_each gives each job its own)
C=$OUT/cache; mkdir -p "$C"
JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# TEST_TIMES=1: the CPU of each section (user + sys of the suite and every
# process it waited for: bash's times) on a line after it, the set-up's before
# the first, and the total before the summary; what docs/benchmarks.md's
# per-section table is measured with
suite_cpu_ms() { # the suite's CPU so far, in ms, into cpu_ms
	local a x s
	times > "$OUT/times"
	cpu_ms=0
	for a in $(< "$OUT/times"); do # "0m1.234s" four times: the shell's and its children's user, sys
		x=${a%s}; s=${x#*m}; s=${s/./}
		cpu_ms=$((cpu_ms + ${x%%m*} * 60000 + 10#$s))
	done
}
section_cpu() {
	suite_cpu_ms
	builtin echo "  (CPU $(((cpu_ms - cpu_at) / 1000)).$(((cpu_ms - cpu_at) % 1000 / 100)) s)"
	cpu_at=$cpu_ms
}
if [ -n "${TEST_TIMES:-}" ]; then
	suite_cpu_ms; cpu_at=$cpu_ms cpu_start=$cpu_ms
	echo() { [[ ${1:-} != "== "* ]] || section_cpu; builtin echo "$@"; }
fi
ptxas_log_ok() { # RC LOG: ptxas succeeded and, with -v, printed none of the wgmma
	# notices (C7515 serialised, C7519 warpgroup.arrive injected, C7510 wgmma in a call;
	# only a module with wgmma gets them. Read by the shell: no process per module)
	local log=
	[ "$1" = 0 ] || return 1
	IFS= read -r -d '' log < "$2"
	[[ $log != *C751[059]* ]]
}
assemble() { # FILE.ptx TARGET (the log in $S/ptxas.log; -v for a module with wgmma:
	# -v costs ptxas 2.5 times the CPU on the 3000 kernels of a limits module)
	if grep -q 'wgmma\.mma_async' "$1"; then
		"$PTXAS" -v --gpu-name "$2" "$1" -o /dev/null >"$S/ptxas.log" 2>&1
		ptxas_log_ok $? "$S/ptxas.log"
		return
	fi
	"$PTXAS" --gpu-name "$2" "$1" -o /dev/null 2>"$S/ptxas.log"
}

# Which files each per-file check covers ("check_X GLOB..."): the sections
# run check_X on every file of its globs, the one-file mode (run_files) runs
# every check one of whose globs matches the file.
CHECK_FILES=(
	"check_bad tests/bad/*.tile"
	"check_fuzz_repro tests/fuzz/regressions/*"
	"check_example examples/*.tile"
	"check_linked tests/gpu/gemm_linked_small.tile examples/gemm_linked.tile"
	"check_wgmma_notice tests/wgmma/*.ptx"
	"check_golden_asm tests/golden/*.ptx"
	"check_gpu_asm tests/gpu/*.tile"
	"check_explain tests/explain/*.tile"
	"check_codegen bench/codegen/*.tile"
	"check_standin examples/*.tile tests/gpu/*.tile tests/explain/*.tile bench/codegen/*.tile"
	"check_emulated examples/*.tile tests/gpu/*.tile tests/explain/*.tile bench/codegen/*.tile bench/gemm_sm90*.tile"
	"check_sizes examples/ragged_*.tile tests/gpu/ragged_*.tile"
	"check_runs examples/*.tile"
	"check_warn tests/warn/*.tile tests/emu_fail/*.tile"
	"check_no_warning examples/*.tile tests/gpu/*.tile bench/gemm_sm90*.tile"
	"check_banks examples/*.tile tests/gpu/*.tile tests/explain/*.tile bench/codegen/*.tile"
	"check_banks_pin tests/gpu/*.tile"
	"check_emu_fail tests/emu_fail/*.tile tests/gpu_fail/*.tile"
	"check_roles_wgmma examples/*.tile tests/gpu/*.tile bench/gemm_sm90*.tile"
	"check_lineinfo examples/*.tile tests/gpu/*.tile"
)
files_of() { # CHECK: the files its globs find now
	local e g
	for e in "${CHECK_FILES[@]}"; do
		[ "${e%% *}" = "$1" ] || continue
		for g in ${e#* }; do printf '%s\n' $g; done
	done
}

# run_each CHECK FILE...: CHECK FILE for every file, in $JOBS worker
# processes, each file with a scratch directory of its own ($S); the reports
# are counted and printed in the order of the files, so the output does not
# depend on the timing. Lines a check prints: @ok, @fail MESSAGE, @tag NAME
# (counted in tags[NAME]); anything else is detail, printed as it is.
# (A process costs milliseconds here, so the workers claim files one by one,
# with an O_EXCL claim file, rather than fork a job per file.)
declare -A tags
each_seq=0
run_each() {
	local fn=$1 dir i w line finished f
	shift
	each_seq=$((each_seq + 1)); dir=$OUT/each$each_seq
	local files=("$@") order=() dirs=()
	tags=()
	[ $# -gt 0 ] || return 0
	for ((i = 1; i <= $#; i++)); do order+=("$i"); dirs+=("$dir/$i"); done
	mkdir -p "${dirs[@]}"
	# the largest files are claimed first (the long poles: gemm_small, mixed),
	# so the last file to finish is a short one
	[ "$JOBS" -gt 1 ] && [ $# -gt "$JOBS" ] && [ -f "$1" ] &&
		order=($(stat -c %s "$@" 2>/dev/null | awk '{ print $1, NR }' | sort -k1,1nr -k2,2n | awk '{ print $2 }'))
	if [ ${#order[@]} != $# ]; then order=(); for ((i = 1; i <= $#; i++)); do order+=("$i"); done; fi
	for ((w = 0; w < JOBS && w < $#; w++)); do
		(
			ok() { echo "@ok"; }
			bad() { echo "@fail $*"; }
			for i in "${order[@]}"; do
				set -C
				{ : > "$dir/$i.claim"; } 2>/dev/null || { set +C; continue; }
				set +C
				S=$dir/$i
				{ "$fn" "${files[i - 1]}"; echo "@done"; } > "$dir/$i.out" 2>&1
			done
		) < /dev/null &
	done
	wait
	for ((i = 1; i <= ${#files[@]}; i++)); do
		finished=0
		[ -f "$dir/$i.out" ] && while IFS= read -r line; do
			case $line in
			@ok) pass=$((pass + 1)) ;;
			"@fail "*) fail=$((fail + 1)); echo "FAIL: ${line#@fail }" ;;
			"@tag "*) line=${line#@tag }; tags[$line]=$((${tags[$line]:-0} + 1)) ;;
			@done) finished=1 ;;
			*) printf '%s\n' "$line" ;;
			esac
		done < "$dir/$i.out"
		[ $finished = 1 ] || bad "$fn ${files[i - 1]}: the check did not finish"
	done
}

file_has() { # FILE ERE: does a line of FILE match? (bash's =~: no process)
	local l
	while IFS= read -r l || [ -n "$l" ]; do [[ $l =~ $2 ]] && return 0; done < "$1"
	return 1
}

value_of() { # VAR FILE PREFIX: the rest of each line that starts with PREFIX (newline-joined)
	local __l __v="" __n=0
	while IFS= read -r __l || [ -n "$__l" ]; do
		[[ $__l == "$3"* ]] || continue
		[ $__n = 0 ] || __v+=$'\n'
		__v+=${__l#"$3"}; __n=1
	done < "$2"
	printf -v "$1" '%s' "$__v"
}
first_line() { # VAR FILE
	IFS= read -r "$1" < "$2" || true
}
target_of() { # FILE: sets tg to its 'target' line's value
	local a b
	tg=
	while read -r a b _; do [ "$a" = target ] && { tg=$b; return; }; done < "$1"
}

# Tool runs that several sections need, made once per file and kept in $C
# (a section's jobs handle distinct files, so no two jobs make the same one).
key_of() { KEY=${1//\//_}; KEY=${KEY// /_}${2:+.$2}; }
cached_rc() { local rc; read -r rc < "$1"; return "$rc"; }
module_of() { # FILE [TARGET]: where emit_once keeps FILE's module: $MODDIR/NAME.ptx, the
	# path `tilepx emit -o $MODDIR FILE...` writes (emit_batch), with .err and .rc beside it
	local d=${1%/*} b=${1##*/}
	[ "$d" = "$1" ] && d=.
	d=${d//\//_}; MODDIR=$C/m_${d// /_}${2:+.$2}; EMITTED=$MODDIR/${b%.tile}.ptx EMIT_ERR=$EMITTED.err
}
emit_once() { # FILE [TARGET]: emit into $EMITTED (errors in $EMIT_ERR); returns emit's exit status
	module_of "$1" "${2:-}"
	if [ ! -f "$EMITTED.rc" ]; then
		[ -d "$MODDIR" ] || mkdir -p "$MODDIR"
		"$T" emit ${2:+--target "$2"} "$1" -o "$EMITTED" 2>"$EMIT_ERR" >/dev/null
		echo $? > "$EMITTED.rc"
	fi
	cached_rc "$EMITTED.rc"
}
assemble_once() { # FILE.ptx TARGET: ptxas -v once per module and target (its log, the
	# register counts too, in $ASM_LOG; -v costs nothing measurable on a module of a few kernels)
	local rc
	ASM_LOG=$1.$2.log
	if [ ! -f "$1.$2.asm" ]; then
		"$PTXAS" -v --gpu-name "$2" "$1" -o /dev/null >"$ASM_LOG" 2>&1
		ptxas_log_ok $? "$ASM_LOG"; rc=$?
		echo $rc > "$1.$2.asm"
	fi
	cached_rc "$1.$2.asm"
}
check_once() { # FILE: tilepx check's exit status; its diagnostics in $CHECK_ERR
	key_of "$1"
	CHECK_ERR=$C/$KEY.check
	if [ ! -f "$C/$KEY.check.rc" ]; then
		"$T" check "$1" 2>"$CHECK_ERR" >/dev/null
		echo $? > "$C/$KEY.check.rc"
	fi
	cached_rc "$C/$KEY.check.rc"
}
explain_once() { # FILE: explain --json FILE, once, into $EXPLAIN_JSON (explain_batch may have made it)
	key_of "$1"
	EXPLAIN_JSON=$C/$KEY.explain.json
	[ -f "$EXPLAIN_JSON" ] || "$T" explain --json "$1" > "$EXPLAIN_JSON" 2>/dev/null
}
explain_batch() { # FILE...: JOBS explain --json runs for all, each file's records into its $EXPLAIN_JSON
	# (a file without records, or one explained before, is left to explain_once)
	local f todo=() w
	for f; do key_of "$f"; [ -f "$C/$KEY.explain.json" ] || todo+=("$f"); done
	for ((w = 0; w < JOBS && w < ${#todo[@]}; w++)); do
		explain_part "${todo[@]:w * ${#todo[@]} / JOBS:(w + 1) * ${#todo[@]} / JOBS - w * ${#todo[@]} / JOBS}" &
	done
	wait
}
explain_part() {
	"$T" explain --json "$@" 2>/dev/null | awk -v C="$C" '
		match($0, /"file": "[^"]*"/) {
			k = substr($0, RSTART + 9, RLENGTH - 10); gsub(/\//, "_", k); gsub(/ /, "_", k)
			if (k != last) { if (last != "") close(C "/" last ".explain.json"); last = k }
			print >> (C "/" k ".explain.json")
		}'
}
split_diags() { # LOG SUFFIX: each FILE's diagnostics in LOG (from one run over many files) into FILE.SUFFIX
	awk -v sfx="$2" '
		match($0, /^[^:]+:[0-9]+:[0-9]+: /) { f = substr($0, 1, index($0, ":") - 1) }
		f != "" { if (f != last) { if (last != "") close(last sfx); last = f } print >> (f sfx) }' "$1"
}
emulate_once() { # FILE: ptxemu --banks FILE, once, into $EMU_LOG; the bank counts ride along
	key_of "$1"
	EMU_LOG=$C/$KEY.banks.emu
	[ -f "$EMU_LOG" ] || "$B/ptxemu" --banks "$1" > "$EMU_LOG" 2>&1
}

# Batches: a process costs about 10 ms of CPU here and ptxas about 80 ms
# before it reads its input, so a section first fills the caches above for
# all its files with a few processes (emit_batch, assemble_batch); whatever
# a batch cannot settle (an error, a crash, a name two modules share) is left
# uncached, and the one-file path (emit_once, assemble_once) then runs and
# reports it exactly as without the batch. make test T=FILE runs no batch.
emit_batch() { # [--target=TG] FILE...: emit_once's results, from JOBS tilepx --batch runs
	# (--target=TG applies to the files after it; --target= goes back to each file's own)
	local tg= f w=0 dir=$OUT/emit_batch$each_seq n=0 ds=()
	declare -A seen=()
	for f; do
		case $f in --target=*) tg=${f#--target=}; continue ;; esac
		module_of "$f" $tg
		[ -n "${seen[$MODDIR]:-}" ] || { seen[$MODDIR]=1; ds+=("$MODDIR"); }
	done
	[ ${#ds[@]} -gt 0 ] && mkdir -p "${ds[@]}"
	tg=
	for f; do
		case $f in --target=*) tg=${f#--target=}; continue ;; esac
		file_has "$f" '^# emit: no' && continue
		module_of "$f" $tg
		[ -f "$EMITTED.rc" ] && continue
		printf 'emit %s%s -o %s\n' "${tg:+--target $tg }" "$f" "$EMITTED" >> "$dir.$w"
		printf '%s %s\n' "$EMIT_ERR" "$EMITTED.rc" >> "$dir.$w.to"
		w=$(((w + 1) % JOBS)); n=$((n + 1))
	done
	for ((w = 0; w < JOBS && w < n; w++)); do tilepx_batch "$dir.$w" "$dir.$w.out" & done
	wait
	batch_verdicts "$dir."
}
assemble_batch() { # TARGET:MODULE...: assemble_once's result for each, from a few ptxas -v runs:
	# ptxas takes several modules and compiles them as one program, so the modules of a run
	# must not share a kernel name (the plan puts such ones apart; a kernel name that also
	# names a register crashes ptxas 13.0 in a batch: such a module runs alone), a kernel's shared
	# variables are renamed apart in a copy (ptxas makes one variable of a name's
	# declarations in all files: the kernels' layouts would change), and a module with a
	# symbol outside its kernels gets a ptxas of its own (another module could resolve a
	# device function; the dynamic shared array, '.extern .shared tilepx$dyn[]', moves the
	# other kernels' shared variables). A run that succeeds without a wgmma notice gives
	# each module its part of the log, the lines its own run prints (tools/asmbatch_check.sh
	# compares them), and 0.
	local plan=$OUT/asm_plan$each_seq a todo=()
	for a; do [ -s "${a#*:}" ] && [ ! -f "${a#*:}.${a%%:*}.asm" ] && todo+=("$a"); done
	[ ${#todo[@]} -gt 1 ] || return 0
	mkdir -p "$plan"
	# per target, largest first, each module into the lightest of its batches (JOBS, or one
	# per 8 modules when fewer) where its names are new (a further batch when every one has them)
	printf '%s\n' "${todo[@]}" | awk -v P="$plan" -v J="$JOBS" '
		{ i = NR; tg[i] = substr($0, 1, index($0, ":") - 1); file[i] = substr($0, index($0, ":") + 1); size[i] = 0; cnt[tg[i]]++
		  while ((getline l < file[i]) > 0) {
			size[i] += length(l) + 1
			if (l ~ /^\.(visible |extern |weak )*\.(func|shared|global|const)/) alone[i] = 1
			if (match(l, /\.entry [A-Za-z_$][A-Za-z0-9_$]*/)) { kn = substr(l, RSTART + 7, RLENGTH - 7); names[i] = names[i] " " kn; kns[kn] = 1; continue }
			# a kernel name that also names a register (ptxas 13.0 crashes on it in a batch)
			for (kn in kns) if (index(l, kn) && l ~ ("(^|[^A-Za-z0-9_$.%])" kn "([^A-Za-z0-9_$]|$)")) alone[i] = 1
		  }
		  split("", kns)
		  close(file[i]) }
		function renamed(l, suf,   out, id) { # each shared variable of the module gets suffix suf
			out = ""
			while (match(l, /[A-Za-z_$%][A-Za-z0-9_$]*/)) {
				id = substr(l, RSTART, RLENGTH)
				out = out substr(l, 1, RSTART - 1) ((id in sh) ? id suf : id)
				l = substr(l, RSTART + RLENGTH)
			}
			return out l
		}
		function copy(i, to,   l, t, n, w) { # the module with its shared variables renamed
			split("", sh)
			while ((getline l < file[i]) > 0)
				if (l ~ /^[ \t]*\.shared/) { t = l; sub(/\[.*/, "", t); n = split(t, w, /[ \t]+/); sh[w[n]] = 1 }
			close(file[i])
			while ((getline l < file[i]) > 0) print (l ~ /[_$]/ ? renamed(l, "__m" i) : l) > to
			close(file[i]); close(to)
		}
		END {
			for (i = 1; i <= NR; i++) ord[i] = i
			for (i = 2; i <= NR; i++) for (j = i; j > 1 && size[ord[j]] > size[ord[j - 1]]; j--) { t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t }
			for (k = 1; k <= NR; k++) {
				i = ord[k]; g = tg[i]
				if (alone[i] || names[i] == "") continue
				if (!(g in nb)) { nb[g] = int((cnt[g] + 7) / 8); if (nb[g] > J) nb[g] = J }
				n = split(names[i], nm, " ")
				best = 0
				for (b = 1; b <= nb[g]; b++) {
					clash = 0
					for (x = 1; x <= n; x++) if ((g SUBSEP b SUBSEP nm[x]) in used) clash = 1
					if (!clash && (best == 0 || load[g, b] < load[g, best])) best = b
				}
				if (best == 0) best = ++nb[g]
				for (x = 1; x <= n; x++) used[g, best, nm[x]] = 1
				load[g, best] += size[i]
				if (load[g, best] == size[i]) order[++nplans] = g ":" best
				copy(i, P "/" i ".ptx")
				printf "%s %s%s\n", file[i], P "/" i ".ptx", names[i] >> (P "/" g ":" best)
			}
			for (p = 1; p <= nplans; p++) print order[p] > (P "/order")
		}'
	[ -f "$plan/order" ] || return 0
	local plans=()
	mapfile -t plans < "$plan/order"
	ASM_PLAN=$plan run_each asm_batch_run "${plans[@]}"
}
asm_batch_run() { # TARGET:N: one ptxas -v for the modules $ASM_PLAN/TARGET:N lists (MODULE ENTRY... lines)
	local plan=$ASM_PLAN/$1 tg=${1%:*} line mods=()
	local a b _
	while read -r a b _; do mods+=("$b"); done < "$plan"
	"$PTXAS" -v --gpu-name "$tg" "${mods[@]}" -o /dev/null > "$S/batch.log" 2>&1
	ptxas_log_ok $? "$S/batch.log" || return 0
	# the log's lines from "Compiling entry function 'K'" to the next such line are K's
	# module's; the lines before the first go to every module; every entry must be there
	awk -v T="$tg" -v Q="'" '
		NR == FNR { m[NR] = $1; for (i = 3; i <= NF; i++) { owner[$i] = $1; want[$1]++ } nm = NR; next }
		/Compiling entry function / { split($0, p, Q); cur = owner[p[2]]; if (cur == "") bad = 1; else got[cur]++ }
		cur == "" { head = head $0 "\n"; next }
		{ body[cur] = body[cur] $0 "\n" }
		END {
			for (i = 1; i <= nm; i++) if (got[m[i]] != want[m[i]]) bad = 1
			if (bad) exit 1
			for (i = 1; i <= nm; i++) { f = m[i] "." T; printf "%s%s", head, body[m[i]] > (f ".log"); close(f ".log"); print 0 > (f ".asm"); close(f ".asm") }
		}' "$plan" "$S/batch.log"
	return 0
}

asm_batch_same() { # MODULE TARGET: the log assemble_batch gave MODULE is its own ptxas -v run's
	# (but the compile times); prints the difference
	local l a=() b=()
	"$PTXAS" -v --gpu-name "$2" "$1" -o /dev/null > "$S/alone.log" 2>&1
	while IFS= read -r l; do [[ $l == *"Compile time"* ]] || a+=("$l"); done < "$1.$2.log"
	while IFS= read -r l; do [[ $l == *"Compile time"* ]] || b+=("$l"); done < "$S/alone.log"
	[ "${a[*]}" = "${b[*]}" ] && return 0
	echo "$1 ($2): batch log"; printf '  %s\n' "${a[@]}"; echo "alone"; printf '  %s\n' "${b[@]}"
	return 1
}
emulate_batch() { # FILE...: emulate_once's logs for many files from a few ptxemu --batch runs
	# (the largest files first, alone; the others in chunks of 8)
	local f todo=() dir=$OUT/emu_batch$each_seq n=0 k=0 ids=()
	for f; do key_of "$f"; [ -f "$C/$KEY.banks.emu" ] || todo+=("$f"); done
	[ ${#todo[@]} -gt 0 ] || return 0
	mkdir -p "$dir"
	mapfile -t todo < <(ls -S -- "${todo[@]}")
	for f in "${todo[@]}"; do
		[ $n -lt $((2 * JOBS)) ] || [ $((n % 8)) = 0 ] && { k=$((k + 1)); ids+=("$k"); }
		key_of "$f"
		printf -- '--banks %s\n' "$f" >> "$dir/$k"
		printf '%s\n' "$C/$KEY.banks.emu" >> "$dir/$k.logs"
		n=$((n + 1))
	done
	EMU_BATCH=$dir run_each emu_batch_run "${ids[@]}"
}
emu_batch_run() { # N: ptxemu --batch over $EMU_BATCH/N; each finished run's report into its log
	"$B/ptxemu" --batch < "$EMU_BATCH/$1" > "$S/emu.all" 2>&1
	# (what follows the last run's END, a leak report at exit, is a failure; a run cut
	# short leaves its file to emulate_once)
	awk 'NR == FNR { log_of[NR] = $0; n = NR; next }
		/^END [0-9]+$/ { i++; printf "%s", sec > log_of[i]; close(log_of[i]); sec = ""; next }
		{ sec = sec $0 "\n" }
		END { if (i == n && sec != "") printf "@fail ptxemu --batch < %s: after its last run:\n%s", log_of[n], sec }' "$EMU_BATCH/$1.logs" "$S/emu.all"
}
tilepx_batch() { # LINES OUT: tilepx --batch < LINES, each invocation's output and status
	# into the files LINES.to names (a line "OUTPUT STATUS" per invocation); one run cut
	# short leaves those after it unwritten (their one-file path runs them). A batch that
	# finished but printed something after its last END (a sanitizer's leak report) or
	# exited otherwise than its runs say writes OUT.bad (batch_verdicts reports it)
	"$T" --batch < "$1" > "$2" 2>&1
	awk -v rc=$? -v B="$2.bad" -v L="$1" 'NR == FNR { out[NR] = $1; st[NR] = $2; n = NR; next }
		/^END [0-9]+$/ { i++; printf "%s", sec > out[i]; close(out[i]); print $2 > st[i]; close(st[i]); sec = ""; if ($2 != 0) want = 1; next }
		{ sec = sec $0 "\n" }
		END { if (i == n && (sec != "" || rc != want + 0)) printf "tilepx --batch < %s: exit %d after its runs (want %d)\n%s", L, rc, want, sec > B }' "$1.to" "$2"
}
batch_verdicts() { # PREFIX: bad for each PREFIX*.bad tilepx_batch wrote
	local f l
	for f in "$1"*.bad; do [ -f "$f" ] || continue; l=; first_line l "$f"; bad "$l"; tail -n +2 "$f"; done
}
check_batch() { # FILE...: check_once's results for many files, from JOBS tilepx --batch runs
	local f w=0 dir=$OUT/check_batch$each_seq n=0
	mkdir -p "$dir"
	for f; do
		key_of "$f"
		[ -f "$C/$KEY.check.rc" ] && continue
		printf 'check %s\n' "$f" >> "$dir/$w"
		printf '%s %s\n' "$C/$KEY.check" "$C/$KEY.check.rc" >> "$dir/$w.to"
		w=$(((w + 1) % JOBS)); n=$((n + 1))
	done
	for ((w = 0; w < JOBS && w < n; w++)); do tilepx_batch "$dir/$w" "$dir/$w.out" & done
	wait
	batch_verdicts "$dir/"
}
bad_batch() { # FILE...: check_bad's emit and check results for many files, from JOBS tilepx --batch runs
	local f w=0 dir=$OUT/bad_batch$each_seq n=0 d ds=()
	for f; do key_of "$f"; [ -f "$C/bad/$KEY/crc" ] || ds+=("$C/bad/$KEY"); done
	[ ${#ds[@]} -gt 0 ] && mkdir -p "${ds[@]}"
	for f; do
		key_of "$f"; d=$C/bad/$KEY
		[ -f "$d/crc" ] && continue
		echo keep > "$d/out.ptx"
		printf 'emit %s -o %s\ncheck %s\n' "$f" "$d/out.ptx" "$f" >> "$dir.$w"
		printf '%s %s\n%s %s\n' "$d/err" "$d/rc" "$d/cerr" "$d/crc" >> "$dir.$w.to"
		w=$(((w + 1) % JOBS)); n=$((n + 1))
	done
	for ((w = 0; w < JOBS && w < n; w++)); do tilepx_batch "$dir.$w" "$dir.$w.out" & done
	wait
	batch_verdicts "$dir."
}
analyse_batch() { # FILE...: check_once's, emit_once's, lineinfo_once's and explain_once's results
	# for each file (its own target), from JOBS tilepx --batch runs; a file's lines follow one another,
	# and tilepx --batch keeps a file's analysis for its next line (one analysis, four outputs)
	local f w dir=$OUT/analyse_batch$each_seq lines to ds=() files=() ld=() n=0
	for f; do
		key_of "$f"; module_of "$f"
		ds+=("$MODDIR")
		lines= to=
		[ -f "$C/$KEY.check.rc" ] || { lines+="check $f"$'\n'; to+="$C/$KEY.check $C/$KEY.check.rc"$'\n'; }
		if ! file_has "$f" '^# emit: no'; then
			[ -f "$EMITTED.rc" ] || { lines+="emit $f -o $EMITTED"$'\n'; to+="$EMIT_ERR $EMITTED.rc"$'\n'; }
			[ -f "$C/$KEY.li.rc" ] || { lines+="emit -lineinfo $f -o $C/$KEY.li.ptx"$'\n'; to+="$C/$KEY.li.err $C/$KEY.li.rc"$'\n'; }
		fi
		# (explain's records and its diagnostics share the batch's output: explain_once takes them when it
		# exits 0 with records only, and explains alone otherwise)
		[ -f "$C/$KEY.explain.json" ] || [ -f "$C/$KEY.explain.rc" ] ||
			{ lines+="explain --json $f"$'\n'; to+="$C/$KEY.explain.all $C/$KEY.explain.rc"$'\n'; }
		[ -n "$lines" ] || continue
		files+=("$f"); ld+=("$lines"$'\t'"$to"); n=$((n + 1))
	done
	[ $n -gt 0 ] || return 0
	mkdir -p "$dir" "${ds[@]}"
	# the largest files first, each to the worker with the fewest bytes so far
	local order=() load=() best i
	mapfile -t order < <(stat -c %s "${files[@]}" | awk '{ print $1, NR - 1 }' | sort -k1,1nr -k2,2n | awk '{ print $2 }')
	for ((w = 0; w < JOBS; w++)); do load[w]=0; done
	for i in "${order[@]}"; do
		best=0
		for ((w = 1; w < JOBS; w++)); do [ ${load[w]} -lt ${load[best]} ] && best=$w; done
		load[best]=$((load[best] + $(stat -c %s "${files[i]}")))
		printf '%s' "${ld[i]%%$'\t'*}" >> "$dir/$best"
		printf '%s' "${ld[i]#*$'\t'}" >> "$dir/$best.to"
	done
	for ((w = 0; w < JOBS; w++)); do [ -f "$dir/$w" ] && tilepx_batch "$dir/$w" "$dir/$w.out" & done
	wait
	batch_verdicts "$dir/"
	local rc l
	for f in "${files[@]}"; do
		key_of "$f"
		[ -f "$C/$KEY.explain.rc" ] && [ ! -f "$C/$KEY.explain.json" ] || continue
		read -r rc < "$C/$KEY.explain.rc"
		[ "$rc" = 0 ] && ! file_has "$C/$KEY.explain.all" '^[^{]' && mv "$C/$KEY.explain.all" "$C/$KEY.explain.json"
	done
}
lineinfo_once() { # FILE: emit -lineinfo FILE once, into $LINEINFO; returns emit's exit status
	key_of "$1"
	LINEINFO=$C/$KEY.li.ptx
	if [ ! -f "$C/$KEY.li.rc" ]; then
		"$T" emit -lineinfo "$1" -o "$LINEINFO" 2>/dev/null >/dev/null
		echo $? > "$C/$KEY.li.rc"
	fi
	cached_rc "$C/$KEY.li.rc"
}
prepare_modules() { # [--target=TG] FILE...: emit_batch, then assemble_batch for each module emitted
	local f pairs=() tg over=
	emit_batch "$@"
	for f; do
		case $f in --target=*) over=${f#--target=}; continue ;; esac
		module_of "$f" $over
		[ -f "$EMITTED.rc" ] && cached_rc "$EMITTED.rc" || continue
		tg=$over; [ -n "$tg" ] || target_of "$f"
		pairs+=("$tg:$EMITTED")
	done
	assemble_batch "${pairs[@]}"
}

# == bad inputs: the exact located error, exit 1, the output file untouched;
# check's first error is emit's
check_bad() {
	local f=$1 exp="" line rc err=() first outl d
	if [ -f "${f%.tile}.expect" ]; then first_line exp "${f%.tile}.expect"
	else first_line line "$f"; case $line in "# expect: "*) exp=${line#"# expect: "} ;; esac; fi
	# bad_batch's results, or the two runs here (the same files: err, rc, out.ptx, cerr, crc)
	key_of "$f"; d=$C/bad/$KEY
	if [ ! -f "$d/crc" ]; then
		d=$S
		echo keep > "$d/out.ptx"
		"$T" emit "$f" -o "$d/out.ptx" 2>"$d/err" >/dev/null
		echo $? > "$d/rc"
		"$T" check "$f" 2>"$d/cerr" >/dev/null
		echo $? > "$d/crc"
	fi
	read -r rc < "$d/rc"
	mapfile -t -n 3 err < "$d/err"
	first=${err[0]:-}
	local tmps=("$d"/out.ptx.tmp.*)
	if [ -z "$exp" ]; then bad "$f carries no expectation"
	elif [ $rc -ne 1 ]; then bad "$f: exit $rc, want 1"
	elif [ "$first" != "$f:$exp" ]; then bad "$f: got '$first', want '$f:$exp'"
	elif [ "${err[2]// /}" != "^" ]; then bad "$f: no caret line"
	elif mapfile -t outl < "$d/out.ptx"; [ ${#outl[@]} != 1 ] || [ "${outl[0]}" != keep ]; then bad "$f: output file clobbered"
	elif [ -e "${tmps[0]}" ]; then bad "$f: temporary left behind"
	else ok; fi
	# a second line '# expect-note: LINE:COL: note: ...' is a note the error must carry
	local head=()
	mapfile -t -n 2 head < "$f"
	case ${head[1]:-} in "# expect-note: "*)
		grep -qxF "$f:${head[1]#"# expect-note: "}" "$d/err" && ok || bad "$f: no line '$f:${head[1]#"# expect-note: "}'" ;;
	esac
	# check reports the same first error as emit (check fails wherever emit fails)
	read -r rc < "$d/crc"
	line=; first_line line "$d/cerr"
	if [ $rc -ne 1 ]; then bad "check $f: exit $rc"
	elif [ "$line" != "$first" ]; then bad "check $f: first error '$line', emit's '$first'"
	else ok; fi
}

# == fuzz reproducers: rejected or emitted, never a crash
check_fuzz_repro() {
	local f=$1 rc
	"$T" check "$f" >/dev/null 2>&1; rc=$?
	[ $rc -le 1 ] && ok || bad "$f (check): exit $rc"
	"$T" emit "$f" -o "$S/fz.ptx" >/dev/null 2>&1; rc=$?
	[ $rc -le 1 ] && ok || bad "$f (emit): exit $rc"
}

# == examples: check, emit, ptxas, golden
check_example() {
	local f=$1 n=${1##*/} tg
	n=${n%.tile}; target_of "$f"
	check_once "$f" || { bad "check $f"; cat "$CHECK_ERR"; return; }
	if file_has "$f" '^# emit: no'; then ok; return; fi
	if ! emit_once "$f"; then bad "emit $f: $(head -1 "$EMIT_ERR")"; return; fi
	if assemble_once "$EMITTED" "$tg"; then ok; else bad "ptxas $f ($tg)"; cat "$ASM_LOG"; fi
	if [ -f "tests/golden/$n.ptx" ]; then # byte-identical needs no ptxdiff
		if cmp -s "tests/golden/$n.ptx" "$EMITTED" || tools/ptxdiff "tests/golden/$n.ptx" "$EMITTED" >"$S/diff"; then ok
		else bad "golden $n"; head -40 "$S/diff"; fi
	else
		bad "no golden file tests/golden/$n.ptx"
	fi
}

# == linked modules: the emitted device functions and the hand-written PTX
# beside the program, assembled (ptxas -c) and linked (nvlink)
check_linked() {
	local f=${1%.tile}
	emit_once "$f.tile" && "$PTXAS" -arch=sm_80 -c "$EMITTED" -o "$S/lf.o" &&
		"$PTXAS" -arch=sm_80 -c "$f.ptx" -o "$S/lm.o" && "$(dirname "$PTXAS")/nvlink" -arch=sm_80 "$S/lf.o" "$S/lm.o" -o "$S/l.cubin" &&
		ok || bad "link $f"
}

# == wgmma modules: the ptxas -v notice check fails on a module ptxas patches
# (tests/wgmma: each is a module the check must catch)
check_wgmma_notice() {
	assemble "$1" sm_90a && bad "$1: its ptxas notice was not caught" || ok
}

# == golden files assemble (a golden byte-identical to its example's emitted
# module, which that section assembled, is not assembled again)
check_golden_asm() {
	local g=$1 tg a b _ e n=${1##*/}
	while read -r a b _; do [ "$a" = .target ] && { tg=$b; break; }; done < "$g"
	module_of "examples/${n%.ptx}.tile"; e=$EMITTED
	if [ -f "$e.$tg.asm" ] && cmp -s "$g" "$e"; then
		assemble_once "$e" "$tg" && ok || { bad "ptxas $g"; cat "$ASM_LOG"; }
	else
		assemble "$g" "$tg" && ok || { bad "ptxas $g"; cat "$S/ptxas.log"; }
	fi
}

emit_and_assemble() { # FILE: one result, emit and ptxas for its target
	local tg; target_of "$1"; ASM_LOG=/dev/null
	if emit_once "$1" && assemble_once "$EMITTED" "$tg"; then ok
	else bad "emit+ptxas $1"; head -3 "$EMIT_ERR" "$ASM_LOG"; fi
}

# the other targets some checks emit for (the sections' batches emit for them too)
B8_TARGETS="sm_100a sm_100f sm_103a sm_103f sm_110a sm_110f sm_120a sm_120f sm_121a sm_121f"
LDGSTS_TARGETS="sm_80 sm_90"
TCGEN05_TARGETS="sm_100a sm_100f sm_103a sm_103f sm_110a sm_110f"
TCGEN05_REFUSED="sm_90a sm_100 sm_103 sm_110 sm_120a sm_120f sm_121f"

# == GPU test programs assemble
check_gpu_asm() {
	local f=$1 tg
	emit_and_assemble "$f"
	# repeat ... nounroll reaches ptxas as the pragma in the loop's header block
	if file_has "$f" '^ *repeat .*nounroll'; then
		grep -A1 '^\$L__' "$EMITTED" | grep -q '^	\.pragma "nounroll";$' && ok || bad "$f: repeat nounroll: no pragma after the loop label"
	fi
	case $f in tests/gpu/ldstmatrix_b8.tile) # the 8-bit matrix shapes on every target ptxas 13.0 takes them on (sm_120f and sm_121f too)
		for tg in $B8_TARGETS; do
			ASM_LOG=/dev/null
			if emit_once "$f" $tg && assemble_once "$EMITTED" $tg && grep -q 'ldmatrix.sync.aligned.m16n16.*\.b8' "$EMITTED"; then ok
			else bad "$f for $tg: want ldmatrix .b8, assembled"; head -3 "$EMIT_ERR" "$ASM_LOG"; fi
		done ;;
	esac
}

# == bench/codegen programs assemble (the .tile of each pair; bench-codegen compiles the CUDA twin)
check_codegen() { emit_and_assemble "$1"; }

# == explain: the '# explain:' lines against explain --json, field by field
# (tools/jsonsub.c: a record matches when it has every field the line names);
# the program emits and assembles
check_explain() {
	local f=$1 n=${1##*/} want got tg json
	n=${n%.tile}
	value_of want "$f" "# explain: "; printf '%s\n' "$want" > "$S/want"
	# the records go where explain_once keeps them: the bank section reads them
	key_of "$f"; json=$C/$KEY.explain.json
	# (analyse_batch's records: explain exited 0 and printed records only)
	if [ ! -f "$json" ] && ! "$T" explain --json "$f" > "$json" 2>"$S/err"; then bad "explain $f: $(head -1 "$S/err")"
	elif "$B/jsonsub" "$S/want" "$json" > "$S/diff" 2>&1; then ok
	else bad "explain $f: the records differ from its '# explain:' lines"; sed "s|^|  $f: |" "$S/diff" | head -20; fi
	emit_and_assemble "$f"
	case "$n" in ldstmatrix_grid|ldstmatrix_swizzle) # one m8n8 .b16 instruction per copy, with its num and .trans
		want=$(sed -n 's/.*"direction": "\(ld\|st\)", "num": \([124]\), "trans": \(true\|false\).*/\1matrix.sync.aligned.m8n8.x\2 \3/p' "$json" |
			sed 's/ true/.trans/; s/ false//' | sort)
		got=$(grep -o '[ls][dt]matrix.sync.aligned.m8n8.x[124]\(.trans\)\{0,1\}.shared.b16' "$EMITTED" | sed 's/.shared.b16//' | sort)
		[ -n "$got" ] && [ "$want" = "$got" ] && ok || bad "$f: PTX instructions do not match the explained num/trans" ;;
	esac
	case "$n" in ldgsts_*) # cp.async programs assemble for sm_80 and sm_90 alike
		for tg in $LDGSTS_TARGETS; do
			ASM_LOG=/dev/null
			if emit_once "$f" $tg && assemble_once "$EMITTED" $tg; then ok
			else bad "emit+ptxas $f for $tg"; head -3 "$EMIT_ERR" "$ASM_LOG"; fi
		done ;;
	esac
	case "$n" in tcgen05_*) # every target ptxas 13.0 takes tcgen05 on emits and assembles; the others are refused
		for tg in $TCGEN05_TARGETS; do
			ASM_LOG=/dev/null
			if emit_once "$f" $tg && assemble_once "$EMITTED" $tg; then ok
			else bad "emit+ptxas $f for $tg"; head -3 "$EMIT_ERR" "$ASM_LOG"; fi
		done
		for tg in $TCGEN05_REFUSED; do
			emit_once "$f" $tg
			[ $? -eq 1 ] && grep -q "need target sm_100a, sm_100f, sm_103a, sm_103f, sm_110a or sm_110f (target is $tg)" "$EMIT_ERR" && ok ||
				bad "$f for $tg: want a located 'needs target' error"
		done ;;
	esac
}

# == no stand-in stride: the proofs' row stride of runtime-stride params (a
# multiple of 2^21 + 1) never reaches a module. standin_scan prints each hit.
standin_scan() { # FILE.ptx...  (STANDIN_EACH=1: each FILE's hits into FILE.standin instead)
	awk -v each="${STANDIN_EACH:-}" '
	each && FNR == 1 { if (out != "") close(out); out = FILENAME ".standin"; printf "" > out }
	{
		sub(/\/\/.*/, ""); s = $0
		while (match(s, /[0-9]+/)) {
			pre = RSTART > 1 ? substr(s, RSTART - 1, 1) : ""
			num = substr(s, RSTART, RLENGTH); post = substr(s, RSTART + RLENGTH, 1)
			s = substr(s, RSTART + RLENGTH)
			if (length(num) < 7 || length(num) > 15 || pre ~ /[.%A-Za-z0-9_]/ || post ~ /[.0-9A-Za-z_]/) continue
			if (num % 2097153 == 0 && num > 0) { if (each) print FILENAME ": " num > out; else print FILENAME ": " num }
		}
	}' "$@"
}
standin_batch() { # FILE...: check_standin's scans of the modules emitted so far, in one awk
	local f mods=()
	for f; do module_of "$f"; [ -f "$EMITTED.rc" ] && cached_rc "$EMITTED.rc" && mods+=("$EMITTED"); done
	[ ${#mods[@]} = 0 ] || STANDIN_EACH=1 standin_scan "${mods[@]}"
}
check_standin() {
	local f=$1 hits
	file_has "$f" '^# emit: no' && return
	emit_once "$f" || { bad "emit $f"; return; }
	[ -f "$EMITTED.standin" ] || standin_scan "$EMITTED" > "$EMITTED.standin"
	[ ! -s "$EMITTED.standin" ] && ok || { bad "$f: a stand-in row stride reached emitted code"; head -5 "$EMITTED.standin"; }
}

# == emulated execution: every kernel's params against the CPU reference,
# one result per kernel; @tag skip for a kernel too large to emulate.
# (ptxemu runs with --banks: the same run, and the bank section reads its counts.)
check_emulated() {
	local f=$1 line k=0 nk=0 nres=0 a
	emulate_once "$f"
	while IFS= read -r line; do
		case $line in
		PASS*) ok; k=0; nres=$((nres + 1)) ;;
		FAIL*) bad "$f: $line"; k=4; nres=$((nres + 1)) ;;
		SKIP*) echo "@tag skip"; k=0; nres=$((nres + 1)) ;;
		*) [ $k -gt 0 ] && { printf '%s\n' "$line"; k=$((k - 1)); } ;;
		esac
	done < "$EMU_LOG"
	# a run that died (a sanitizer abort) reports fewer kernels than the program has
	while read -r a _; do [ "$a" = kernel ] && nk=$((nk + 1)); done < "$f"
	[ $nres -ge $nk ] || { bad "$f: ptxemu reported $nres of its $nk kernels"; tail -3 "$EMU_LOG"; }
}

# == -lineinfo: FILE's module with -lineinfo is its plain module plus .file
# and .loc lines, each statement's instructions under its line (a file that
# does not emit is the other sections' business)
check_lineinfo() {
	local f=$1
	lineinfo_once "$f" || return 0
	emit_once "$f"
	grep -v -E '^[[:space:]]*\.(loc|file)[[:space:]]' "$LINEINFO" | cmp -s - "$EMITTED" || {
		bad "$f: -lineinfo changed more than .file/.loc lines"; return; }
	awk -f tests/lineinfo/locs.awk "$LINEINFO" >"$S/locs.log" && ok || { bad "$f: .loc lines"; head -3 "$S/locs.log"; }
}

# == runtime sizes: '# sizes: M=1,63,64 K=8,56' in a ragged program: every
# combination is emulated
check_sizes() {
	local f=$1 spec kv n c v combos next vals
	value_of spec "$f" "# sizes: "
	[ -n "$spec" ] || { bad "$f: no '# sizes:' line"; return; }
	combos=("")
	for kv in $spec; do
		n=${kv%%=*}; next=()
		for c in "${combos[@]}"; do
			IFS=, read -r -a vals <<< "${kv#*=}"
			for v in "${vals[@]}"; do next+=("$c --set $n=$v"); done
		done
		combos=("${next[@]}")
	done
	emu_launches "$f" "${combos[@]}"
}
emu_launches() { # FILE ARGS...: ptxemu ARGS FILE for each ARGS, one result each, in one ptxemu --batch
	# (a launch the batch did not finish, a crash, runs alone)
	local f=$1 c line i=0 out=() rcs=() sec=
	shift
	for c; do printf '%s %s\n' "$c" "$f"; done > "$S/emu.batch"
	"$B/ptxemu" --batch < "$S/emu.batch" > "$S/emu.all" 2>&1
	local brc=$?
	while IFS= read -r line; do
		if [[ $line =~ ^END\ ([0-9]+)$ ]]; then rcs[i]=${BASH_REMATCH[1]}; out[i]=$sec; sec=; i=$((i + 1))
		else sec+=$line$'\n'; fi
	done < "$S/emu.all"
	# a batch whose runs all exited 0 exits 0 (a sanitizer's leak report at exit does not)
	if [ $i = $# ] && [ $brc != 0 ] && [[ " ${rcs[*]} " != *" "[1-9]* ]]; then
		bad "$f: ptxemu --batch exit $brc after all its runs passed"; printf '%s' "$sec" | head -5
	fi
	i=0
	for c; do
		if [ -n "${rcs[i]:-}" ]; then
			if [ "${rcs[i]}" = 0 ] && [[ $'\n'${out[i]} != *$'\nFAIL'* ]]; then ok
			else bad "$f at$c"; printf '%s' "${out[i]}" | head -5; fi
		else
			# shellcheck disable=SC2086
			if "$B/ptxemu" $c "$f" > "$S/emu.log" 2>&1 && ! file_has "$S/emu.log" '^FAIL'; then ok
			else bad "$f at$c"; head -5 "$S/emu.log"; fi
		fi
		i=$((i + 1))
	done
}

# == launch values a program lists: '# runs: M=130,K=8 M=20,K=448' emulates
# each listed launch (the pipelines at 1, STAGES-1, STAGES, STAGES+1, a prime
# and many trips, several tiles per CTA)
check_runs() {
	local f=$1 spec run c
	value_of spec "$f" "# runs: "
	[ -n "$spec" ] || return
	local runs=()
	for run in $spec; do runs+=(" --set ${run//,/ --set }"); done
	emu_launches "$f" "${runs[@]}"
}

# == hazard warnings: '# warn:' is check's first diagnostic, and check exits 0
# (tests/warn; tests/emu_fail programs that carry a '# warn:' line)
check_warn() {
	local f=$1 want got
	value_of want "$f" "# warn: "
	case $f in tests/emu_fail/*) [ -n "$want" ] || return ;; esac
	check_once "$f"; local rc=$?
	got=; first_line got "$CHECK_ERR"; got=${got#"$f:"}
	[ $rc = 0 ] && [ "$want" = "$got" ] && ok || bad "$f: want '$want', got '$got'"
}
# and no warning for the examples and their fixed twins in tests/gpu
check_no_warning() {
	check_once "$1"
	file_has "$CHECK_ERR" 'warning:' && bad "$1: warns" || ok
}

# == bank conflicts: explain's wavefronts, computed from the layouts and each
# variant's access pattern (src/proof/banks.c), against ptxemu --banks, which
# counts them on the emitted PTX as it runs. Every copy line ptxemu measures
# must have explain's numbers (per CTA, times the grid), and every explain
# number must be measured.
banks_cmp() { # FILE: prints mismatches, nothing when equal
	local f=$1
	emulate_once "$f"
	explain_once "$f"
	awk -v F="$f" '
	FILENAME ~ /\.tile$/ {
		if ($1 == "#" && $2 == "set:") for (i = 3; i <= NF; i++) { split($i, kv, "="); val[kv[1]] = kv[2] }
		if ($1 == "kernel") { cur = $2; ctas[cur] = 1 }
		if ($1 == "grid") { # constants, scalars or cdiv(SCALAR, D) at the "# set:" values
			g = substr($0, 5); gsub(/ /, "", g); n = split(g, p, ","); prod = 1
			for (i = 1; i <= n; i++)
				if (p[i] ~ /^cdiv\(/) { nm = substr(p[i], 6); d = p[i + 1]; sub(/\)/, "", d); i++
					prod *= int((val[nm] + d - 1) / d) }
				else prod *= (p[i] ~ /^[0-9]+$/ ? p[i] : val[p[i]]) # a bare scalar: its "# set:" value
			ctas[cur] = prod
		}
		next
	}
	FILENAME ~ /banks\.emu$/ {
		if ($1 == "PASS") ran[$2] = 1
		if ($1 == "BANKS" && $3 == "line") { l = $4; sub(":", "", l); emu[$2 " " l] = $5 " " $8 " " $11 }
		next
	}
	{
		k = $0; sub(/^\{"kernel": "/, "", k); sub(/".*/, "", k)
		l = $0; sub(/.*"line": /, "", l); sub(/,.*/, "", l)
		copy[k " " l] = 1
		if (!match($0, /"banks": \[.*\]/)) next
		b = substr($0, RSTART, RLENGTH); i = w = d = 0
		while (match(b, /"instructions": [0-9]+, "wavefronts": [0-9]+, "ideal": [0-9]+/)) {
			s = substr(b, RSTART, RLENGTH); b = substr(b, RSTART + RLENGTH)
			split(s, p, /[^0-9]+/); i += p[2]; w += p[3]; d += p[4]
		}
		ex[k " " l] = i * ctas[k] " " w * ctas[k] " " d * ctas[k]
	}
	END {
		for (x in ex) { split(x, kl, " "); if (ran[kl[1]] && emu[x] != ex[x]) print F ": " x ": explain " ex[x] " (instructions wavefronts ideal, whole grid), ptxemu \"" emu[x] "\"" }
		for (x in emu) { split(x, kl, " "); if (copy[x] && !(x in ex)) print F ": " x ": ptxemu measures " emu[x] ", explain has no numbers" }
	}' "$f" "$EMU_LOG" "$EXPLAIN_JSON"
}
check_banks() {
	local f=$1 msg
	file_has "$f" '^shared ' || return
	# a repeat with a runtime count: explain counts its largest trip count, ptxemu the launch's
	file_has "$f" '^ *repeat (cdiv|[A-Za-z])' && return
	echo "@tag compared"
	banks_cmp "$f" > "$S/banks.msg"
	[ ! -s "$S/banks.msg" ] && ok || bad "$(< "$S/banks.msg")"
}

# == bank conflicts pinned to the H100's: each '# banks: line L: ...' line of a
# tests/gpu program is a line of ptxemu --banks (broadcasts, merged accesses)
check_banks_pin() {
	local f=$1 want wants=() miss=()
	value_of want "$f" "# banks: "
	[ -n "$want" ] || return
	mapfile -t wants <<< "$want"
	emulate_once "$f"
	for want in "${wants[@]}"; do
		grep -q "^BANKS [^ ]* $want\$" "$EMU_LOG" ||
			miss+=("$f: want '$want', ptxemu: $(grep "^BANKS [^ ]* ${want%%:*}:" "$EMU_LOG")")
	done
	[ ${#miss[@]} = 0 ] && ok || bad "$(printf '%s\n' "${miss[@]}")"
}

# == emulator failures: '# emu:' is ptxemu's first line of report
check_emu_fail() {
	local f=$1 want got l n=0 lines=()
	value_of want "$f" "# emu: "
	# a hang reports one line per blocked instruction: as many lines as '# emu:' lines
	while IFS= read -r l || [ -n "$l" ]; do [[ $l == "# emu: "* ]] && n=$((n + 1)); done < "$f"
	"$B/ptxemu" "$f" > "$S/emu.log" 2>&1
	[ $n = 0 ] || mapfile -t -n $n lines < "$S/emu.log"
	local IFS=$'\n'; got=${lines[*]}
	while [[ $got == *$'\n' ]]; do got=${got%$'\n'}; done # as $(head -n N) gave it
	[ "$want" = "$got" ] && ok || bad "$f: want '$want', got '$got'"
}

# == seeded wgmma bugs: every program with a wgmma, with roles ('when'
# blocks) or without, checks, and four mutants of it are rejected with a
# located wgmma error: its first wgmma.fence deleted, that fence moved above
# the first 'init', the first 'wgmma.wait 0' swapped with the statement
# after it where that statement copies out of a local buffer (the accumulator
# read while its wgmma is in flight), and the releases or refills right
# after the first 'wgmma.wait N' (N > 0) that has them (mbarrier.arrive,
# expect_tx, copy_async) moved above that wait (a stage released or
# overwritten while the wgmma reading it may run). A mutant that does not
# apply (no init, no such copy, release or refill) is not made
roles_wgmma_mutant() { # FILE KIND: the mutant on stdout (empty: not applicable)
	awk -v kind="$2" -v rel='^(mbarrier[.](arrive|expect_tx) |[a-z]+ copy_async )' '
	function stmt(l) { sub(/#.*/, "", l); gsub(/^[ \t]+|[ \t]+$/, "", l); return l }
	{ line[NR] = $0; s[NR] = stmt($0) }
	/^local / { loc[$2] = 1 }
	END {
		for (i = 1; i <= NR; i++) if (s[i] == "wgmma.fence") { f = f ? f : i }
		for (i = 1; i <= NR; i++) if (s[i] ~ /^init /) { n = n ? n : i }
		for (i = 1; i <= NR; i++) if (s[i] == "wgmma.wait 0") { w = w ? w : i }
		if (kind == "releasebeforewait") { # the release (or refill) right after the first such wait, moved above it
			for (i = 1; i < NR && !r; i++) if (s[i] ~ /^wgmma\.wait [1-9]/ && s[i + 1] ~ rel) r = i
			if (!r) exit
			for (e = r + 1; e < NR && s[e + 1] ~ rel; e++) ;
			tmp = line[r]
			for (j = r; j < e; j++) line[j] = line[j + 1]
			line[e] = tmp
		} else if (kind == "waitlate") {
			for (j = w + 1; j <= NR && s[j] == ""; j++) ;
			src = s[j]; gsub(/\[[^]]*\]/, "", src); sub(/.*, */, "", src)
			if (!w || s[j] !~ /copy / || !(src in loc)) exit
			tmp = line[w]; line[w] = line[j]; line[j] = tmp
		} else if (!f || (kind == "fencebeforeinit" && !n)) {
			exit
		}
		for (i = 1; i <= NR; i++) {
			if (kind != "waitlate" && kind != "releasebeforewait" && i == f) continue
			if (kind == "fencebeforeinit" && i == n) { ind = line[i]; sub(/[^ ].*/, "", ind); print ind "wgmma.fence" }
			print line[i]
		}
	}' "$1"
}
check_roles_wgmma() {
	local f=$1 k
	file_has "$f" 'warpgroup mma' || return 0
	file_has "$f" '^ *when ' && echo "@tag roles"
	check_once "$f" && ok || bad "$f (with wgmma): $(head -1 "$CHECK_ERR")" # (the warning sections reuse it)
	for k in nofence fencebeforeinit waitlate releasebeforewait; do
		# a program says where a mutant is no bug ('# wgmma mutants: no KIND (why)')
		grep -q "^# wgmma mutants: no $k\b" "$f" && continue
		roles_wgmma_mutant "$f" $k > "$S/m.tile"
		[ -s "$S/m.tile" ] || continue
		"$T" check "$S/m.tile" > "$S/m.log" 2>&1
		if [ $? = 1 ] && file_has "$S/m.log" "^$S/m.tile:[0-9]+:[0-9]+: error: .*(wgmma|accumulator|A fragment)"; then ok
		else bad "$f: the seeded wgmma bug '$k' is not rejected by a wgmma error: $(grep -m1 error "$S/m.log")"; fi
	done
}

# the generated programs of tests/run.sh, tests/banks.sh and tests/races.sh
# (seeded tools/randtile output; a failing one is kept in /tmp)
check_random() { # every program emits and assembles, or is rejected with a located error
	local f=$1 n=${1##*/} tg rc
	n=${n%.tile}; target_of "$f"
	# the section emits all programs in one run first; a program that run left
	# without a module is emitted alone, for its exit status and its error
	if [ -s "${f%.tile}.ptx" ]; then rc=0; else "$T" emit "$f" -o "${f%.tile}.ptx" 2>"${f%.tile}.err"; rc=$?; fi
	# randtile writes a cp.async copy_async only where 4-byte pieces fit: each must lower
	local async=0
	if file_has "$f" '^[a-z]* copy_async' && ! file_has "$f" '^mbarrier'; then async=1; echo "@tag async"; fi
	if [ $rc -eq 1 ] && file_has "${f%.tile}.err" "^${f//./\\.}:[0-9]+:[0-9]+: error: "; then
		echo "@tag rejected"; ok
		[ $async = 0 ] || { echo "@tag async_refused"; echo "  refused cp.async: $f: $(grep -m1 'ldgsts' "${f%.tile}.err")"; }
		return
	fi
	if [ $rc -ne 0 ]; then echo "@tag failed"; bad "random $n: exit $rc (seed $SEED)"; head -3 "${f%.tile}.err"; cp "$f" /tmp/ 2>/dev/null; return; fi
	# (assemble_batch's 0: it assembled, with -v and no wgmma notice)
	if { [ -f "${f%.tile}.ptx.$tg.asm" ] && cached_rc "${f%.tile}.ptx.$tg.asm"; } || "$PTXAS" --gpu-name "$tg" "${f%.tile}.ptx" -o /dev/null 2>"$S/ptxas.log"; then echo "@tag assembled"; ok
	else echo "@tag failed"; bad "random $n: ptxas ($tg), program kept in /tmp/$n.tile"; head -5 "$S/ptxas.log"; cp "$f" /tmp/; fi
}
check_banks_random() { # random layouts, swizzles, scopes and vector widths
	local f=$1 msg
	file_has "$f" '^shared ' || return
	echo "@tag compared"
	banks_cmp "$f" > "$S/banks.msg"
	[ ! -s "$S/banks.msg" ] && ok || { bad "$(< "$S/banks.msg") (seed 20261123)"; cp "$f" /tmp/; }
}
check_race_random() { # no race warning with the syncs; without them, each one check gives is met by ptxemu
	# (tests/races.sh: check's diagnostics of FILE are in FILE.synced, and in
	# FILE.unsynced after every sync was removed)
	local f=$1
	[ -f "$f.synced" ] && file_has "$f.synced" 'warning: (warp|thread [0-9]+ (reads|writes))' && bad "$f: a race warning with the program's syncs" || ok
	[ -f "$f.unsynced" ] && file_has "$f.unsynced" 'warning: warp' || { ok; return; }
	echo "@tag races"
	"$B/ptxemu" "$f" > "$S/emu.log" 2>&1
	file_has "$S/emu.log" 'race: warp|still in flight' && ok || { bad "$f: tilepx check reports a race that ptxemu does not meet"; cp "$f" /tmp/; }
}

run_check() { # CHECK FILE: one line per check
	local p=$pass f=$fail
	run_each "$1" "$2"
	if [ $((pass + fail - p - f)) = 0 ]; then echo "  $1 $2: does not apply"
	else echo "  $1 $2: $((pass - p)) passed, $((fail - f)) failed"; fi
}
# make test T=FILE...: every check whose globs match each file
run_files() {
	local f e g fn n
	for f; do
		f=${f#./}
		echo "== $f"
		n=0
		for e in "${CHECK_FILES[@]}"; do
			fn=${e%% *}
			for g in ${e#* }; do
				# shellcheck disable=SC2053
				if [[ $f == $g ]]; then run_check "$fn" "$f"; n=$((n + 1)); break; fi
			done
		done
		# an example's golden file, too
		g=${f##*/}; g=tests/golden/${g%.tile}.ptx
		case $f in examples/*.tile) [ -f "$g" ] && run_check check_golden_asm "$g" ;; esac
		[ $n -gt 0 ] || bad "$f: no check applies to it (see CHECK_FILES in tests/lib.sh)"
	done
}
