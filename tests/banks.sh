# sourced by tests/run.sh: explain's shared-memory wavefronts, computed from
# the layouts and each variant's access pattern (src/hazard.c), against
# ptxemu --banks, which counts them on the emitted PTX as it runs. Every copy
# line ptxemu measures must have explain's numbers (per CTA, times the grid),
# and every explain number must be measured.
echo "== bank conflicts: explain's wavefronts equal ptxemu --banks' on every program that touches shared memory, and on random ones"
banks_cmp() { # FILE: prints mismatches, nothing when equal
	f=$1
	"$B/ptxemu" --banks "$f" > "$OUT/banks.emu" 2>&1
	"$T" explain --json "$f" > "$OUT/banks.json" 2>/dev/null
	awk -v F="$f" '
	FILENAME ~ /\.tile$/ {
		if ($1 == "#" && $2 == "set:") for (i = 3; i <= NF; i++) { split($i, kv, "="); val[kv[1]] = kv[2] }
		if ($1 == "kernel") { cur = $2; ctas[cur] = 1 }
		if ($1 == "grid") { # constants or cdiv(SCALAR, D) at the "# set:" values
			g = substr($0, 5); gsub(/ /, "", g); n = split(g, p, ","); prod = 1
			for (i = 1; i <= n; i++)
				if (p[i] ~ /^cdiv\(/) { nm = substr(p[i], 6); d = p[i + 1]; sub(/\)/, "", d); i++
					prod *= int((val[nm] + d - 1) / d) }
				else prod *= p[i]
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
	}' "$f" "$OUT/banks.emu" "$OUT/banks.json"
}
nb=0
for f in examples/*.tile tests/gpu/*.tile tests/explain/*.tile bench/codegen/*.tile; do
	grep -q '^shared ' "$f" || continue
	# a repeat with a runtime count: explain counts its largest trip count, ptxemu the launch's
	grep -Eq '^ *repeat (cdiv|[A-Za-z])' "$f" && continue
	nb=$((nb + 1))
	msg=$(banks_cmp "$f")
	[ -z "$msg" ] && ok || bad "$msg"
done
echo "  $nb programs compared"
nb=0 RB=$OUT/banks_rand; mkdir -p "$RB"
"$B/randtile" 20261123 200 "$RB" > /dev/null || bad "randtile failed"
for f in "$RB"/*.tile; do # random layouts, swizzles, scopes and vector widths
	grep -q '^shared ' "$f" || continue
	nb=$((nb + 1))
	msg=$(banks_cmp "$f")
	[ -z "$msg" ] && ok || { bad "$msg (seed 20261123)"; cp "$f" /tmp/; }
done
echo "  $nb random programs compared"
echo "== bank conflicts: ptxemu --banks gives the H100's wavefronts ('# banks:' lines: broadcasts, merged accesses)"
for f in tests/gpu/*.tile; do
	grep -q '^# banks: ' "$f" || continue
	"$B/ptxemu" --banks "$f" > "$OUT/banks.emu" 2>&1
	sed -n 's/^# banks: //p' "$f" | while IFS= read -r want; do
		grep -q "^BANKS [^ ]* $want\$" "$OUT/banks.emu" && echo ok ||
			echo "bad $f: want '$want', ptxemu: $(grep "^BANKS [^ ]* ${want%%:*}:" "$OUT/banks.emu")"
	done > "$OUT/banks.pin"
	if grep -q '^bad' "$OUT/banks.pin"; then bad "$(grep '^bad' "$OUT/banks.pin" | cut -c5-)"; else ok; fi
done
