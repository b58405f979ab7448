# Sourced by tests/run.sh: the output file is the user's data (issue 12 s5).
# Needs $T (tilepx), $OUT (scratch dir), ok and bad.
echo "== output files: symlinks, devices, FIFOs, modes, directories, stdin/stdout, same-file refusal, full disks"
W=$OUT/outfile
rm -rf "$W"; mkdir -p "$W"
T=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")   # the subshells below cd
cp examples/reg_32x8.tile "$W/a.tile"
( cd "$W"
  # a symlink stays a symlink; the file it names gets the PTX and keeps its mode
  echo old > real.ptx; chmod 640 real.ptx; ln -s real.ptx link.ptx
  "$T" emit a.tile -o link.ptx && [ -L link.ptx ] && grep -q '^.entry\|\.entry' real.ptx &&
    [ "$(stat -c %a real.ptx)" = 640 ] ) && ok || bad "emit -o SYMLINK must write through the link and keep the mode"
( cd "$W"
  # a new file gets the umask's mode
  umask 027; rm -f new.ptx; "$T" emit a.tile -o new.ptx && [ "$(stat -c %a new.ptx)" = 640 ] ) &&
  ok || bad "emit -o NEW must create the file with 0666 & ~umask"
( cd "$W"
  # an existing file keeps its mode
  echo x > keep.ptx; chmod 604 keep.ptx; "$T" emit a.tile -o keep.ptx && [ "$(stat -c %a keep.ptx)" = 604 ] ) &&
  ok || bad "emit -o EXISTING must keep the file's mode"
# /dev/null stays a character device (run as root this used to replace it)
"$T" emit "$W/a.tile" -o /dev/null && [ -c /dev/null ] && ok || bad "emit -o /dev/null must write the device"
# a FIFO is written, not replaced
( cd "$W"
  mkfifo ff; timeout 20 cat ff > fifo.out & reader=$!
  "$T" emit a.tile -o ff; rc=$?; wait $reader
  [ $rc = 0 ] && [ -p ff ] && grep -q '\.entry' fifo.out ) && ok || bad "emit -o FIFO must write into the FIFO"
# the output may not be the input
( cd "$W"
  cp a.tile b.tile; "$T" emit b.tile -o b.tile 2>err; rc=$?
  [ $rc = 1 ] && cmp -s a.tile b.tile && grep -q 'is the input file' err ) && ok || bad "emit -o INPUT must be refused"
( cd "$W"
  ln -sf a.tile alias.ptx; "$T" emit a.tile -o alias.ptx 2>/dev/null; rc=$?
  [ $rc = 1 ] && [ -L alias.ptx ] && grep -q '^target' a.tile ) && ok || bad "emit -o LINK-TO-INPUT must be refused"
# a directory argument writes DIR/NAME.ptx, with or without the slash, for several inputs too
( cd "$W"
  mkdir -p d1 d2; cp a.tile c.tile
  "$T" emit a.tile -o d1/ && "$T" emit a.tile c.tile -o d2 && [ -f d1/a.ptx ] && [ -f d2/a.ptx ] && [ -f d2/c.ptx ] ) &&
  ok || bad "emit -o DIR must write DIR/NAME.ptx"
# 'emit -' reads stdin and writes stdout
"$T" emit - < "$W/a.tile" > "$W/stdout.ptx" && grep -q '\.entry' "$W/stdout.ptx" && ok || bad "emit - must read stdin, write stdout"
# a full device is an error, on every path that writes
if [ -w /dev/full ]; then
	"$T" emit "$W/a.tile" -o - > /dev/full 2>/dev/null; [ $? = 1 ] && ok || bad "emit -o - to /dev/full must exit 1"
	"$T" emit "$W/a.tile" -o /dev/full 2>/dev/null; [ $? = 1 ] && ok || bad "emit -o /dev/full must exit 1"
	"$T" explain "$W/a.tile" > /dev/full 2>/dev/null; [ $? = 1 ] && ok || bad "explain > /dev/full must exit 1"
fi
# control characters in the path do not break the PTX header comment
( cd "$W"
  nl=$(printf 'x\ny.tile'); cp a.tile "$nl"
  "$T" emit "$nl" -o nl.ptx && "$PTXAS" --gpu-name sm_90 nl.ptx -o /dev/null && grep -q 'x\\x0ay.tile' nl.ptx ) &&
  ok || bad "a newline in the input path must be escaped in the PTX header"
