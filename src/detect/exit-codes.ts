/**
 * What a container exit code usually means (failure-catalogue A3): 1/2 application error, 126 not executable,
 * 127 command not found, 128 start error, 134 abort (SIGABRT), 137 killed (SIGKILL: OOM or a liveness kill),
 * 139 segmentation fault (SIGSEGV), 143 terminated (SIGTERM), other codes above 128 the signal `code - 128`.
 */
export function exitClass(code: number | undefined): string {
  switch (code) {
    case undefined:
      return "unknown exit";
    case 0:
      return "success";
    case 1:
    case 2:
      return "application error";
    case 126:
      return "command not executable";
    case 127:
      return "command not found";
    case 128:
      return "could not start";
    case 134:
      return "aborted (SIGABRT)";
    case 137:
      return "killed (SIGKILL: out of memory or a liveness-probe kill)";
    case 139:
      return "segmentation fault (SIGSEGV)";
    case 143:
      return "terminated (SIGTERM)";
    default:
      return code > 128 && code < 160 ? `killed by signal ${code - 128}` : "application error";
  }
}
