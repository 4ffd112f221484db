import { describe, expect, it } from "vitest";
import { extractHeredocPatch, isImplicitPatchInvocation } from "../../src/apply-patch/index.js";

const BODY = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch";

describe("extractHeredocPatch", () => {
  it("reads the shell_command form", () => {
    expect(extractHeredocPatch(`apply_patch <<'EOF'\n${BODY}\nEOF\n`)).toEqual({ patch: BODY });
  });

  it("reads bash -lc argv, any shell path, applypatch alias, any delimiter", () => {
    expect(extractHeredocPatch(["bash", "-lc", `apply_patch <<'EOF'\n${BODY}\nEOF\n`])).toEqual({
      patch: BODY,
    });
    expect(extractHeredocPatch(["/bin/zsh", "-c", `applypatch <<PATCH\n${BODY}\nPATCH`])).toEqual({
      patch: BODY,
    });
    expect(extractHeredocPatch(["sh", "-c", `apply_patch << "END"\n${BODY}\nEND\n\n`])).toEqual({
      patch: BODY,
    });
  });

  it("reads the direct argv form", () => {
    expect(extractHeredocPatch(["apply_patch", BODY])).toEqual({ patch: BODY });
    expect(extractHeredocPatch(["applypatch", BODY])).toEqual({ patch: BODY });
  });

  it("returns the cd directory", () => {
    expect(extractHeredocPatch(`cd sub/dir && apply_patch <<'EOF'\n${BODY}\nEOF`)).toEqual({
      patch: BODY,
      workdir: "sub/dir",
    });
    expect(extractHeredocPatch(`cd 'with space' && apply_patch <<EOF\n${BODY}\nEOF`)).toEqual({
      patch: BODY,
      workdir: "with space",
    });
    expect(extractHeredocPatch(`cd "dq" &&\napply_patch <<EOF\n${BODY}\nEOF`)).toEqual({
      patch: BODY,
      workdir: "dq",
    });
  });

  it("keeps blank and indented lines of the body", () => {
    const body = "*** Begin Patch\n*** Update File: a\n@@\n \n-  x\n+  y\n*** End Patch";
    expect(extractHeredocPatch(`apply_patch <<'EOF'\n${body}\nEOF`)).toEqual({ patch: body });
  });

  it("strips leading tabs of the terminator with <<-", () => {
    expect(extractHeredocPatch(`apply_patch <<-EOF\n${BODY}\n\t\tEOF\n`)).toEqual({ patch: BODY });
  });

  it("rejects anything but the single statement", () => {
    const cases: (string | string[])[] = [
      `echo hi; apply_patch <<'EOF'\n${BODY}\nEOF`,
      `apply_patch <<'EOF'\n${BODY}\nEOF\necho done`,
      `apply_patch <<'EOF' && echo done\n${BODY}\nEOF`,
      `apply_patch <<'EOF'\n${BODY}\n`,
      `apply_patch file.patch <<'EOF'\n${BODY}\nEOF`,
      `cd a b && apply_patch <<'EOF'\n${BODY}\nEOF`,
      `cd a || apply_patch <<'EOF'\n${BODY}\nEOF`,
      `cd $HOME && apply_patch <<'EOF'\n${BODY}\nEOF`,
      ["python", "-c", `apply_patch <<'EOF'\n${BODY}\nEOF`],
      ["bash", "-x", `apply_patch <<'EOF'\n${BODY}\nEOF`],
      ["apply_patch"],
      ["apply_patch", BODY, "extra"],
      ["ls", "-la"],
      "ls -la",
    ];
    for (const command of cases) expect(extractHeredocPatch(command), JSON.stringify(command)).toBeNull();
  });
});

describe("isImplicitPatchInvocation", () => {
  it("spots a bare patch given as a command", () => {
    expect(isImplicitPatchInvocation([BODY])).toBe(true);
    expect(isImplicitPatchInvocation(["bash", "-lc", BODY])).toBe(true);
    expect(isImplicitPatchInvocation(BODY)).toBe(true);
  });

  it("is false for real commands and explicit invocations", () => {
    expect(isImplicitPatchInvocation(["ls"])).toBe(false);
    expect(isImplicitPatchInvocation(["apply_patch", BODY])).toBe(false);
    expect(isImplicitPatchInvocation(`apply_patch <<'EOF'\n${BODY}\nEOF`)).toBe(false);
  });
});
