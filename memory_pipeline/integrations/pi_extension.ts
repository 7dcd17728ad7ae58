// memory-pipeline pi extension: written by `memory-pipeline hooks install pi` (run it again to update,
// `--uninstall` removes it). Do not edit: your changes would be replaced.
//
// - session start: runs `memory-pipeline brief` in the session's folder and adds the briefing to
//   the system prompt of every turn (so it also survives a compaction); never stored in the session.
// - before a compaction: `memory-pipeline emit --trigger compaction` for what the compaction folds.
// - shutdown: `memory-pipeline emit --trigger shutdown` for what came after the last compaction.
// A failure is one line on stderr; it never stops pi.
import { execFile } from "node:child_process";

const MEMORY_PIPELINE: { argv: string[]; env: Record<string, string> } = __MEMORY_PIPELINE__;
const BRIEF_TIMEOUT_MS = 30_000;
const EMIT_TIMEOUT_MS = 120_000;

type Ran = { ok: boolean; stdout: string; stderr: string };

function run(args: string[], cwd: string, timeout: number): Promise<Ran> {
  const [command, ...base] = MEMORY_PIPELINE.argv;
  return new Promise((resolve) => {
    execFile(command, [...base, ...args],
      { cwd, timeout, env: { ...process.env, ...MEMORY_PIPELINE.env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ ok: !error, stdout: String(stdout), stderr: String(stderr) }));
  });
}

function warn(what: string, ran: Ran): void {
  const why = ran.stderr.trim().split("\n").pop() || "failed";
  process.stderr.write(`memory-pipeline (${what}): ${why}\n`);
}

async function emit(trigger: "compaction" | "shutdown", ctx: any): Promise<void> {
  const file = ctx.sessionManager?.getSessionFile?.();
  if (!file) return; // an ephemeral session (--no-session): nothing on disk to remember
  const ran = await run(["emit", "--trigger", trigger, "--transcript", file, "--format", "pi",
                         "--window", "since-compaction"], ctx.cwd, EMIT_TIMEOUT_MS);
  if (!ran.ok) warn(`${trigger} event`, ran);
}

export default function memoryPipeline(pi: any) {
  let briefing: Promise<string> = Promise.resolve("");

  pi.on("session_start", async (_event: any, ctx: any) => {
    briefing = run(["brief"], ctx.cwd, BRIEF_TIMEOUT_MS).then((ran) => {
      if (!ran.ok) warn("briefing", ran);
      return ran.ok ? ran.stdout.trim() : "";
    });
  });

  pi.on("before_agent_start", async (event: any) => {
    const text = await briefing;
    if (text) return { systemPrompt: `${event.systemPrompt}\n\n${text}` };
  });

  pi.on("session_before_compact", async (_event: any, ctx: any) => {
    await emit("compaction", ctx);
  });

  pi.on("session_shutdown", async (event: any, ctx: any) => {
    if (event?.reason === "reload") return; // the same session goes on
    await emit("shutdown", ctx);
  });
}
