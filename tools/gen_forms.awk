# Turn ptx_templates/*.tpl into build/gen/ptx_forms.{h,c}.
# usage: awk -v H=out.h -v C=out.c -v CAPS=ptx_templates/caps.def -f gen_forms.awk ptx_templates/*.tpl
#
# A row is   NAME MIN_PTX CAP [key=value ...] TEXT   (ptx_templates/README.md).
# The key=value fields make a form a typed record of a family: code finds it
# with form_find(FAM_X, &(FormKey){...}) instead of naming FORM_X. The schema
# below is the whole list of fields; adding one is one line here.
function fail(msg) { printf("%s:%d: %s\n", FILENAME, FNR, msg) > "/dev/stderr"; bad = 1; exit 1 }
BEGIN {
	n = 0
	# the capabilities a row may name: CAPABILITY(tpl, id, ...) lines of CAPS (ptx_templates/caps.def)
	while ((getline line < CAPS) > 0)
		if (match(line, /^CAPABILITY\([a-z0-9_]+, *[A-Z0-9_]+,/)) {
			split(substr(line, 12, RLENGTH - 12), cf, /, */)
			capid[cf[1]] = cf[2]
		}
	# operand classes of the holes (src/ptx/builder.c operand_fits says what each accepts)
	OPCLASSES = "r16 r32 r64 pred imm fimm vec label sym a32 a64"
	split(OPCLASSES, oc, " "); for (i in oc) opclass[oc[i]] = 1
	if (!length(capid)) { printf("gen_forms.awk: no capabilities in CAPS=%s\n", CAPS) > "/dev/stderr"; exit 1 }
	# key fields: (family, key) picks exactly one form. kind "enum" values become
	# PREFIX_VALUE enumerators (0 = unset), kind "int" values are numbers (0 = unset).
	nk = split("shape num trans bits fmt space bytes pack rank zfill atype btype dtype areg", keys, " ")
	kind["shape"] = "enum"; prefix["shape"] = "SHAPE"; ctype["shape"] = "FormShape"
	kind["fmt"] = "enum";   prefix["fmt"] = "FMT";     ctype["fmt"] = "FormFmt"
	kind["space"] = "enum"; prefix["space"] = "SPACE"; ctype["space"] = "FormSpace"
	kind["atype"] = "enum"; prefix["atype"] = "ATYPE"; ctype["atype"] = "FormAtype"
	kind["btype"] = "enum"; prefix["btype"] = "BTYPE"; ctype["btype"] = "FormBtype"
	kind["dtype"] = "enum"; prefix["dtype"] = "DTYPE"; ctype["dtype"] = "FormDtype"
	comment["atype"] = "element type of the A operand (wgmma)"
	comment["btype"] = "element type of the B operand (wgmma)"
	comment["dtype"] = "accumulator type (wgmma)"
	comment["areg"] = "1: the A operand comes from registers (wgmma RS)"
	kind["num"] = kind["trans"] = kind["bits"] = kind["bytes"] = kind["pack"] = kind["rank"] = kind["zfill"] = kind["areg"] = "int"
	comment["shape"] = "PTX shape qualifier (.m8n8, .32x32b, ...)"
	comment["num"] = "matrices / repetitions (.x1, .x2, ...)"
	comment["trans"] = "1: .trans"
	comment["bits"] = "element width in bits"
	comment["fmt"] = "packed source format of 8-bit matrices (.b8x16.b6x16_p32 ...)"
	comment["space"] = "state space (.shared, .global)"
	comment["bytes"] = "bytes moved per thread"
	comment["pack"] = "1: .pack::16b / .unpack::16b"
	comment["rank"] = "tensor rank (.1d ... .5d)"
	comment["zfill"] = "1: a trailing ignore-src predicate operand (zero fill)"
	# data fields: per-thread facts of the form, not part of the key
	nd = split("regs", dkeys, " ")
	comment["regs"] = "32-bit registers per thread in the register operand"
	isdata["regs"] = 1
	for (i = 1; i <= nk; i++) iskey[keys[i]] = 1
	nfam = 0; nenum["shape"] = nenum["fmt"] = nenum["space"] = nenum["atype"] = nenum["btype"] = nenum["dtype"] = 0
}
/^[ \t]*#/ || /^[ \t]*$/ { next }
# a family loop: "@foreach VAR FROM TO STEP" makes the next row once per value,
# with ${VAR}, ${VAR/K} and ${VAR*K} replaced by the value (divided, multiplied)
/^[ \t]*@foreach/ {
	if (NF != 5 || $2 !~ /^[A-Z]+$/ || $3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/ || $5 !~ /^[1-9][0-9]*$/)
		fail("bad loop: @foreach VAR FROM TO STEP")
	lvar = $2; lfrom = $3 + 0; lto = $4 + 0; lstep = $5 + 0; looping = 1
	next
}
looping {
	looping = 0; orig = $0
	for (lv = lfrom; lv <= lto; lv += lstep) {
		$0 = loop_subst(orig, lvar, lv)
		form_row()
	}
	next
}
{ form_row() }
function loop_subst(s, var, v,   out, m, expr, k) {
	out = ""
	while (match(s, /\$\{[A-Z]+([\/*][0-9]+)?\}/)) {
		expr = substr(s, RSTART + 2, RLENGTH - 3)
		if (substr(expr, 1, length(var)) != var) fail("unknown loop variable in ${" expr "}")
		k = substr(expr, length(var) + 1)
		m = v
		if (k ~ /^\//) { if (v % substr(k, 2) != 0) fail(var "=" v " is not a multiple of " substr(k, 2)); m = v / substr(k, 2) }
		else if (k ~ /^\*/) m = v * substr(k, 2)
		out = out substr(s, 1, RSTART - 1) m
		s = substr(s, RSTART + RLENGTH)
	}
	return out s
}
function form_row() {
	name = $1; ver = $2; cap = $3
	if (name !~ /^[A-Z][A-Z0-9_]*$/) fail("bad form name " name)
	if (ver !~ /^[0-9]\.[0-9]$/) fail("bad version " ver)
	if (!(cap in capid)) fail("bad capability " cap " (ptx_templates/caps.def)")
	if (name in seen) fail("duplicate form " name)
	seen[name] = 1
	file = FILENAME; sub(/.*\//, "", file); sub(/\.tpl$/, "", file)
	fam = file
	typed = 0
	for (k in val) delete val[k]
	for (f = 4; f <= NF && $f ~ /^[a-z_]+=/; f++) {
		k = $f; sub(/=.*/, "", k); v = $f; sub(/^[^=]*=/, "", v)
		if (k == "fam") {
			if (v !~ /^[a-z][a-z0-9_]*$/) fail("bad family " v)
			fam = v
		} else if ((k in iskey) || (k in isdata)) {
			if (kind[k] == "enum") {
				if (v !~ /^[a-z0-9][a-z0-9_]*$/) fail("bad " k " value " v)
			} else if (v !~ /^[0-9]+$/) {
				fail("bad " k " value " v " (a number)")
			}
			if (k in val) fail("field " k " given twice")
			val[k] = v
		} else {
			fail("unknown field " k " (known: fam " join_keys() ")")
		}
		typed = 1
	}
	if (f > NF) fail("no instruction text")
	text = $0
	for (i = 1; i < f; i++) sub(/^[ \t]*[^ \t]+[ \t]+/, "", text)
	# operand holes carry their class: $N:CLASS, alternatives joined by '/'
	# ($1:r32/imm); a hole used again may leave it out. The text keeps $N; the
	# classes go to ptx_forms[].holes and b_ins checks every operand against them
	for (h = 0; h < 10; h++) hcls[h] = ""
	out = ""; rest = text
	while (match(rest, /\$[0-9](:[a-z0-9\/]+)?/)) {
		tok = substr(rest, RSTART, RLENGTH); h = substr(tok, 2, 1) + 0; c = substr(tok, 4)
		if (c == "" && hcls[h] == "") fail("operand $" h " has no class ($" h ":r32, ...; known: " OPCLASSES ")")
		if (c != "") {
			na = split(c, alts, "/")
			for (a = 1; a <= na; a++) if (!(alts[a] in opclass)) fail("unknown operand class " alts[a] " (known: " OPCLASSES ")")
			if (hcls[h] != "" && hcls[h] != c) fail("operand $" h " is " hcls[h] " and " c)
			hcls[h] = c
		}
		out = out substr(rest, 1, RSTART - 1) "$" h
		rest = substr(rest, RSTART + RLENGTH)
	}
	text = out rest
	holes = ""
	for (h = 0; h < 10; h++) holes = holes (h ? ", " : "") "\"" hcls[h] "\""
	mn = text; sub(/[ \t].*/, "", mn)
	# the typed fields must agree with the instruction they describe
	if ("shape" in val && index(mn, "." val["shape"] ".") == 0) fail("shape=" val["shape"] " is not in " mn)
	if ("space" in val && index(mn, "." val["space"] ".") == 0) fail("space=" val["space"] " is not in " mn)
	if ("num" in val && index(mn, ".x" val["num"] ".") == 0) fail("num=" val["num"] " is not in " mn)
	if ("rank" in val && index(mn, "." val["rank"] "d.") == 0) fail("rank=" val["rank"] " is not in " mn)
	if ("trans" in val && (val["trans"] == 1) != (index(mn, ".trans") > 0)) fail("trans=" val["trans"] " disagrees with " mn)
	split(ver, vv, ".")
	names[n] = name; vers[n] = vv[1] * 10 + vv[2]; caps[n] = capid[cap]; texts[n] = text; files[n] = file; rholes[n] = holes
	if (typed) {
		if (!(fam in famseen)) { famseen[fam] = 1; fams[++nfam] = fam }
		rfam[n] = "FAM_" toupper(fam)
		init = ""
		sig = fam
		for (i = 1; i <= nk; i++) {
			k = keys[i]
			if (!(k in val)) { sig = sig " 0"; continue }
			if (kind[k] == "enum") {
				if (!((k, val[k]) in enumseen)) { enumseen[k, val[k]] = 1; enums[k, ++nenum[k]] = val[k] }
				init = init sprintf(".%s = %s_%s, ", k, prefix[k], toupper(val[k]))
			} else {
				init = init sprintf(".%s = %s, ", k, val[k])
			}
			sig = sig " " val[k]
		}
		if (sig in sigseen) fail("form " name " has the same family and key as " sigseen[sig])
		sigseen[sig] = name
		rkey[n] = init
		rregs[n] = ("regs" in val) ? val["regs"] : 0
	} else {
		rfam[n] = "FAM_NONE"; rkey[n] = "0"; rregs[n] = 0
	}
	n++
}
function join_keys(   s, i) { s = ""; for (i = 1; i <= nk; i++) s = s keys[i] " "; return s "regs" }
END {
	if (bad) exit 1
	print "/* generated by tools/gen_forms.awk from ptx_templates/; do not edit */" > H
	print "#ifndef TILEPX_PTX_FORMS_H\n#define TILEPX_PTX_FORMS_H\ntypedef enum FormId {" > H
	for (i = 0; i < n; i++) printf("\tFORM_%s,\n", names[i]) > H
	print "\tFORM_COUNT\n} FormId;\n" > H
	print "/* families of typed forms (rows with key=value fields) */\ntypedef enum FormFam {\n\tFAM_NONE," > H
	for (i = 1; i <= nfam; i++) printf("\tFAM_%s,\n", toupper(fams[i])) > H
	print "\tFAM_COUNT\n} FormFam;" > H
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		if (kind[k] != "enum") continue
		printf("typedef enum %s {\n\t%s_NONE,\n", ctype[k], prefix[k]) > H
		for (j = 1; j <= nenum[k]; j++) printf("\t%s_%s,\n", prefix[k], toupper(enums[k, j])) > H
		printf("\t%s_COUNT\n} %s;\n", prefix[k], ctype[k]) > H
	}
	print "/* a typed form's key; fields a family does not use stay 0 */\ntypedef struct FormKey {" > H
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		printf("\t%s %s; /* %s */\n", kind[k] == "enum" ? ctype[k] : "int", k, comment[k]) > H
	}
	print "} FormKey;" > H
	print "extern const char *const form_fam_names[FAM_COUNT];" > H
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		if (kind[k] == "enum") printf("extern const char *const form_%s_names[%s_COUNT];\n", k, prefix[k]) > H
	}
	print "/* the typed form of family fam whose key equals *k field for field, or FORM_COUNT */" > H
	print "FormId form_find(FormFam fam, const FormKey *k);" > H
	print "/* \"shape=m8n8 num=4 trans=1 bits=16\": the fields of k that are set */" > H
	print "void form_key_format(const FormKey *k, char *buf, unsigned long n);" > H
	print "#endif" > H

	print "/* generated by tools/gen_forms.awk from ptx_templates/; do not edit */" > C
	print "#include \"tilepx.h\"\nconst PtxForm ptx_forms[FORM_COUNT] = {" > C
	for (i = 0; i < n; i++) {
		t = texts[i]; gsub(/\\/, "\\\\", t); gsub(/"/, "\\\"", t)
		printf("\t[FORM_%s] = {\"%s\", \"%s\", %d, %s, \"%s\", %s, {%s}, %d, {%s}},\n", names[i], names[i], files[i],
		       vers[i], caps[i], t, rfam[i], rkey[i], rregs[i], rholes[i]) > C
	}
	print "};" > C
	printf("const char *const form_fam_names[FAM_COUNT] = {\"-\"") > C
	for (i = 1; i <= nfam; i++) printf(", \"%s\"", fams[i]) > C
	print "};" > C
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		if (kind[k] != "enum") continue
		printf("const char *const form_%s_names[%s_COUNT] = {\"-\"", k, prefix[k]) > C
		for (j = 1; j <= nenum[k]; j++) printf(", \"%s\"", enums[k, j]) > C
		print "};" > C
	}
	print "FormId form_find(FormFam fam, const FormKey *k)\n{" > C
	print "\tfor (int f = 0; f < FORM_COUNT; f++) {\n\t\tconst FormKey *r = &ptx_forms[f].key;" > C
	printf("\t\tif (fam != FAM_NONE && ptx_forms[f].fam == fam") > C
	for (i = 1; i <= nk; i++) printf(" &&\n\t\t    r->%s == k->%s", keys[i], keys[i]) > C
	print ")\n\t\t\treturn (FormId)f;\n\t}\n\treturn FORM_COUNT;\n}" > C
	print "void form_key_format(const FormKey *k, char *buf, unsigned long n)\n{\n\tint u = 0;\n\tif (n)\n\t\tbuf[0] = 0;" > C
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		if (kind[k] == "enum")
			printf("\tif (k->%s > 0 && k->%s < %s_COUNT && (unsigned long)u < n)\n\t\tu += snprintf(buf + u, n - u, \"%%s%s=%%s\", u ? \" \" : \"\", form_%s_names[k->%s]);\n", k, k, prefix[k], k, k, k) > C
		else
			printf("\tif (k->%s && (unsigned long)u < n)\n\t\tu += snprintf(buf + u, n - u, \"%%s%s=%%d\", u ? \" \" : \"\", k->%s);\n", k, k, k) > C
	}
	print "}" > C
}
