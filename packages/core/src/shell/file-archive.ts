import { quoteShellArg } from "./quote.js";

/** One file of a {@link encodeFileArchive} archive: a workspace-relative path, its mode and its bytes. */
export interface ArchiveFile {
  /** Workspace-relative path (validated: no `..`, no NUL, no leading `/`). */
  readonly path: string;
  /** POSIX permission bits, given exactly. */
  readonly mode: number;
  readonly content: Uint8Array;
}

/** The unpack script's exit when a path to write is a directory (nothing else exits so). */
export const DIRECTORY_EXIT = 65;

/** First word of an archive's header line. */
const MAGIC = "sandport-files";
/** The format's version, the header's second word. */
const VERSION = 1;
/** Content of at least this size starts on a {@link BLOCK_BYTES} boundary, so most of it is copied in whole blocks. */
const ALIGN_FROM_BYTES = 4096;
/** Bytes of the header line, its newline included (padded with spaces). */
const HEADER_BYTES = 64;
/** The alignment of large contents: the unpack script's `dd` copies 512-byte blocks from such a boundary on. */
const BLOCK_BYTES = 512;
/** Path bytes written as themselves in a manifest line; every other byte is a `\0ooo` escape for `printf %b`. */
const PLAIN_BYTE = /^[A-Za-z0-9._/-]$/;

/**
 * Packs files into one self-describing archive for {@link fileArchiveScript}:
 *
 * - a header line `sandport-files 1 <files> <manifest bytes> <archive bytes>`,
 *   padded with spaces to 64 bytes;
 * - a manifest, one line per file: `<mode, octal> <offset> <length> <path>`,
 *   the offset counted from the end of the manifest, the path's bytes outside
 *   `[A-Za-z0-9._/-]` written as `\0ooo` escapes (so a line holds no space,
 *   newline or backslash of the path's own, and any byte survives), then
 *   newlines up to a 512-byte boundary (counted in the manifest's bytes);
 * - the contents, back to back; one of 4 KiB or more starts on a 512-byte
 *   boundary (zero padding before it), so `dd` copies most of it in blocks.
 *
 * Any bytes are carried exactly, NUL and invalid UTF-8 included.
 */
export function encodeFileArchive(files: readonly ArchiveFile[]): Uint8Array {
  let dataBytes = 0;
  const lines: string[] = [];
  const offsets: number[] = [];
  for (const file of files) {
    // The data starts on a block boundary (the manifest is padded to one), so a relative boundary is an absolute one.
    if (file.content.byteLength >= ALIGN_FROM_BYTES) dataBytes += padding(dataBytes);
    lines.push(`${file.mode.toString(8)} ${dataBytes} ${file.content.byteLength} ${escapePath(file.path)}\n`);
    offsets.push(dataBytes);
    dataBytes += file.content.byteLength;
  }
  const manifest = lines.join("");
  // The header line has a fixed width and the manifest is padded with newlines (after its last line: never read).
  const manifestBytes = manifest.length + padding(HEADER_BYTES + manifest.length);
  const total = HEADER_BYTES + manifestBytes + dataBytes;
  const header = `${MAGIC} ${VERSION} ${files.length} ${manifestBytes} ${total}`.padEnd(HEADER_BYTES - 1, " ");
  const archive = new Uint8Array(total);
  archive.set(Buffer.from(`${header}\n${manifest.padEnd(manifestBytes, "\n")}`, "latin1"), 0);
  files.forEach((file, index) => {
    archive.set(file.content, HEADER_BYTES + manifestBytes + (offsets[index] as number));
  });
  return archive;
}

/** Zero bytes needed before content at archive `position` to reach a block boundary. */
function padding(position: number): number {
  return (BLOCK_BYTES - (position % BLOCK_BYTES)) % BLOCK_BYTES;
}

/** The path's UTF-8 bytes, each one outside {@link PLAIN_BYTE} as `\0ooo` (`printf %b` reads it back). */
function escapePath(path: string): string {
  let escaped = "";
  for (const byte of Buffer.from(path, "utf8")) {
    const character = String.fromCharCode(byte);
    escaped += PLAIN_BYTE.test(character) ? character : `\\0${byte.toString(8).padStart(3, "0")}`;
  }
  return escaped;
}

/**
 * The POSIX `sh` script that unpacks an {@link encodeFileArchive} archive read
 * from its stdin into `workspaceRoot` (made first if missing; the script can
 * start anywhere), or, without it, into the directory it starts in (for a
 * runner that starts it in the workspace, where absolute paths may not name
 * the workspace as the file API sees it). The archive is copied to a `mktemp` file and its size
 * checked before any file is written (a cut stream writes nothing); then,
 * for each file in order: its parent directories made, its bytes copied
 * with `dd` (in blocks of 64 KiB, 512 or 1 byte, as its offset allows)
 * into a temporary name beside it, created with its mode (by the umask;
 * `chmod` for one with execute bits),
 * and the temporary renamed over the path (`mv -f`), so a file appears whole.
 * A path whose final component is a symlink is written where the link
 * points (`realpath -m`), as a file API that follows symlinks would; a path
 * that is a directory stops it with exit {@link DIRECTORY_EXIT}. The first failure stops the script with a
 * non-zero exit and a message on stderr; files before it stay written.
 *
 * Needs: `sh`, `cat`, `wc`, `dd`, `mkdir`, `chmod`, `mv`, `rm`, `mktemp`
 * (GNU coreutils or BusyBox), and `realpath -m` only for a final symlink.
 * The caller has checked every path (inside the workspace, no symlinked
 * parent leading out) before sending it.
 */
export function fileArchiveScript(workspaceRoot?: string): string {
  const enter =
    workspaceRoot === undefined
      ? ""
      : `w=${quoteShellArg(workspaceRoot)}\nmkdir -p -- "$w" && cd -- "$w" || fail "cannot enter the workspace $w"\n`;
  return `${UNPACK_PRELUDE}${enter}${UNPACK_BODY}`;
}

const UNPACK_PRELUDE = String.raw`set -u
fail() { printf 'sandport files: %s\n' "$*" >&2; exit 1; }
`;

const UNPACK_BODY = String.raw`u0=$(umask)
a=$(mktemp) || fail "mktemp failed"
trap 'rm -f -- "$a" "$a.dd"' EXIT
trap 'exit 1' HUP INT TERM
cat > "$a" || fail "cannot store the archive in $a"
exec 3< "$a"
IFS= read -r h <&3 || fail "no archive on stdin"
set -f
set -- $h
set +f
[ "$#" -eq 5 ] && [ "$1" = ${MAGIC} ] && [ "$2" = ${VERSION} ] || fail "stdin is not a version ${VERSION} archive"
n=$3
b=$((${"$"}{#h} + 1 + $4))
[ "$(($(wc -c < "$a")))" -eq "$5" ] || fail "the archive arrived incomplete"
# dd from the archive to fd 4; its report goes to a file, shown only when it failed.
piece() {
  dd if="$a" bs="$1" skip="$2" count="$3" 2> "$a.dd" >&4 || { cat "$a.dd" >&2; return 1; }
}
# Copies $2 bytes at archive offset $1 to fd 4, in the largest blocks the offset allows: single bytes up to a
# 512-byte boundary, 512-byte blocks up to a 64 KiB one, 64 KiB blocks, then smaller ones for the rest.
copy() {
  o=$1 l=$2
  for s in 1 512; do
    k=$(((s * 512 - o % (s * 512)) % (s * 512)))
    [ "$k" -le "$l" ] || k=$((l / s * s))
    [ "$k" -eq 0 ] || piece "$s" "$((o / s))" "$((k / s))" || return 1
    o=$((o + k)) l=$((l - k))
  done
  for s in 65536 512 1; do
    k=$((l / s * s))
    [ "$k" -eq 0 ] || piece "$s" "$((o / s))" "$((k / s))" || return 1
    o=$((o + k)) l=$((l - k))
  done
}
i=0
while [ "$i" -lt "$n" ]; do
  IFS=' ' read -r m o l e <&3 || fail "the manifest ends early"
  case $e in *\\*) p=$(printf '%b.' "$e") && p=${"$"}{p%.};; *) p=$e;; esac
  case $p in */*) d=${"$"}{p%/*};; *) d=.;; esac
  umask "$u0"
  [ -d "$d" ] || mkdir -p -- "$d" || fail "cannot make the directory of $p"
  if [ -L "$p" ]; then
    p=$(realpath -m -- "$p" && echo .) && p=${"$"}{p%?.} || fail "cannot resolve the symlink $p"
    d=${"$"}{p%/*}
    d=${"$"}{d:-/}
  fi
  [ ! -d "$p" ] || { printf 'sandport files: %s is a directory\n' "$p" >&2; exit ${DIRECTORY_EXIT}; }
  t=$d/.sandport-$$-$i.tmp
  # A mode without execute bits is the new file's 0666 masked: the umask gives it, no chmod needed.
  case $m in
    *[1357]*) x=1 u=077 ;;
    *) x= u=$((0666 - 0$m)) && u=$((u / 64))$((u / 8 % 8))$((u % 8)) ;;
  esac
  umask "$u"
  if ! { copy "$((b + o))" "$l" 4> "$t" && { [ -z "$x" ] || chmod "$m" -- "$t"; } && mv -f -- "$t" "$p"; }; then
    rm -f -- "$t"
    fail "cannot write $p"
  fi
  i=$((i + 1))
done
`;
