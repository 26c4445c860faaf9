#!/usr/bin/env python3
"""Type-checks the SDK's Apple-only code on Linux, against stub modules of Apple's frameworks.

No Linux machine has Security, AuthenticationServices, LocalAuthentication or CryptoKit, so the
normal build never compiles the code under `#if canImport(Security)` and the like. This script
compiles each stub in Tests/AppleStubs/ (one file per framework, named after it) into a module,
then type-checks, with those modules visible, every source file that imports one of them or tests
`canImport` of one, in its own target and with the flags Package.swift gives that target (Swift 6,
strict concurrency, its upcoming features). The other files of the target, and the targets it
depends on, are only read for their declarations.

It proves nothing about Apple's signatures (the stubs copy them from developer.apple.com); it
catches every mistake against the SDK's own types, concurrency and control flow in that code.

    python3 Scripts/apple-typecheck.py               # the check
    python3 Scripts/apple-typecheck.py --self-check  # the check, then proof that it fails on
                                                     # mistakes planted in copies of Apple-only files

Covering another framework is one more stub file; covering another file needs nothing. A file
whose Apple-only code cannot compile on Linux at all says so on a line of its own:
`// apple-typecheck: not compiled: <reason>`.
"""

import json
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUB_DIR = ROOT / "Tests" / "AppleStubs"
SKIP_MARKER = "// apple-typecheck: not compiled:"

# Mistakes planted in a copy of an Apple-only file, just inside its `#if canImport(...)` line, that
# the check must report. (file, what the mistake is, planted code, part of the expected message)
SELF_CHECKS = [
    (
        "Sources/NativeAuth/Storage/KeychainCredentialStore.swift",
        "a Swift dictionary passed where Security takes a CFDictionary (no `as CFDictionary`)",
        "func appleTypecheckSelfCheck() -> OSStatus { SecItemDelete([String: Any]()) }",
        "cannot convert value of type '[String : Any]'",
    ),
    (
        "Sources/NativeAuth/UserAgents/WebAuthenticationSessionUserAgent.swift",
        "the main-actor presentation anchor asked for from a nonisolated function",
        "func appleTypecheckSelfCheck(_ provider: PresentationContextProvider, _ session: ASWebAuthenticationSession)"
        " -> ASPresentationAnchor { provider.presentationAnchor(for: session) }",
        "main actor-isolated",
    ),
    (
        "Sources/NativeAuth/UserAgents/WebAuthenticationSessionUserAgent.swift",
        "a switch over a framework's error codes without `@unknown default`",
        "func appleTypecheckSelfCheck(_ code: ASWebAuthenticationSessionError.Code) -> Int {"
        " switch code { case .canceledLogin, .presentationContextNotProvided, .presentationContextInvalid: 0 } }",
        "unknown",
    ),
    (
        "Sources/AuthCrypto/SecurityRS256Verifier.swift",
        "an optional SecKey used without unwrapping",
        "func appleTypecheckSelfCheck(_ data: CFData) -> Bool {"
        " SecKeyVerifySignature(SecKeyCreateWithData(data, [:] as CFDictionary, nil),"
        " .rsaSignatureMessagePKCS1v15SHA256, data, data, nil) }",
        "must be unwrapped",
    ),
]

IMPORT_LINE = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:class|struct|enum|protocol|typealias|func|let|var)\s+)?(\w+)"
)
CONDITION_LINE = re.compile(r"^\s*#(?:if|elseif)\b(.*)$")
CAN_IMPORT = re.compile(r"canImport\((\w+)\)")
# A platform condition not under `!`: a branch Linux never enters, whatever the stubs.
PLATFORM_CONDITION = re.compile(r"(?<!!)\b(?:os|arch|targetEnvironment)\(\w+\)")


class CheckFailed(Exception):
    pass


def relative(path):
    return str(Path(path).resolve().relative_to(ROOT))


def run(command, check=True):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise CheckFailed(
            f"$ {shlex.join(str(part) for part in command)}\n{result.stdout}{result.stderr}".rstrip()
        )
    return result


# MARK: - Stubs


def stub_order():
    """The stub modules, each after the stubs it imports."""
    stubs = {path.stem: path for path in sorted(STUB_DIR.glob("*.swift"))}
    if not stubs:
        raise CheckFailed(f"no stubs in {relative(STUB_DIR)}")
    needs = {}
    for name, path in stubs.items():
        imported = {m.group(1) for line in path.read_text().splitlines() if (m := IMPORT_LINE.match(line))}
        needs[name] = sorted(imported & stubs.keys() - {name})
    order, done, visiting = [], set(), set()

    def visit(name):
        if name in done:
            return
        if name in visiting:
            raise CheckFailed(f"the stubs import each other in a cycle through {name}")
        visiting.add(name)
        for dependency in needs[name]:
            visit(dependency)
        visiting.discard(name)
        done.add(name)
        order.append(name)

    for name in stubs:
        visit(name)
    return [(name, stubs[name]) for name in order]


def compile_stubs(stub_dir):
    """Each stub as a library-evolution module (so its enums are not frozen, as Apple's are not)."""
    order = stub_order()
    for name, path in order:
        run([
            "swiftc", "-emit-module", "-enable-library-evolution", "-swift-version", "6", "-parse-as-library",
            # Only "Foundation was not compiled with library evolution support" comes out of these.
            "-suppress-warnings",
            "-I", str(stub_dir), "-module-name", name, str(path),
            "-emit-module-path", str(stub_dir / f"{name}.swiftmodule"),
        ])
    return [name for name, _ in order]


# MARK: - The package


class Target:
    def __init__(self, description, settings, package_name, language_mode):
        self.name = description["name"]
        self.module = description["c99name"]
        self.kind = description["type"]
        directory = ROOT / description["path"]
        self.sources = [directory / source for source in description["sources"]]
        self.dependencies = description.get("target_dependencies") or []
        self.flags = ["-swift-version", language_mode, "-D", "SWIFT_PACKAGE", "-D", "DEBUG"]
        self.flags += swift_setting_flags(self.name, settings)
        if package_name:
            self.flags += ["-package-name", package_name]
        if not any(source.name == "main.swift" for source in self.sources):
            self.flags.append("-parse-as-library")


def swift_setting_flags(target, settings):
    """The swiftc flags of a target's `swiftSettings`, as `swift package dump-package` lists them."""
    flags = []
    for setting in settings:
        if setting.get("tool") != "swift":
            continue
        if setting.get("condition"):
            raise CheckFailed(f"{target}: conditional settings are not supported yet; extend {relative(__file__)}")
        (kind, values), = setting["kind"].items()
        arguments = [values[key] for key in sorted(values)] if isinstance(values, dict) else values
        if kind == "enableUpcomingFeature":
            flags += ["-enable-upcoming-feature", arguments[0]]
        elif kind == "enableExperimentalFeature":
            flags += ["-enable-experimental-feature", arguments[0]]
        elif kind == "define":
            flags += ["-D", arguments[0]]
        elif kind == "treatWarning":
            flags += ["-Werror" if arguments[1] == "error" else "-Wwarning", arguments[0]]
        elif kind == "treatAllWarnings":
            flags.append("-warnings-as-errors" if arguments[0] == "error" else "-no-warnings-as-errors")
        elif kind == "swiftLanguageMode" and isinstance(arguments[0], str):
            flags += ["-swift-version", arguments[0]]
        elif kind == "unsafeFlags":
            flags += arguments[0]
        else:
            raise CheckFailed(f"{target}: swift setting {kind} is not supported yet; extend {relative(__file__)}")
    return flags


def package_targets():
    described = json.loads(run(["swift", "package", "describe", "--type", "json"]).stdout)
    manifest = json.loads(run(["swift", "package", "dump-package"]).stdout)
    modes = manifest.get("swiftLanguageModes") or manifest.get("swiftLanguageVersions") or ["6"]
    language_mode = str(modes[0])
    package_name = re.sub(r"\W", "_", manifest["name"]) if any(
        target.get("packageAccess") for target in manifest["targets"]) else None
    settings = {target["name"]: target.get("settings") or [] for target in manifest["targets"]}
    return {
        description["name"]: Target(description, settings.get(description["name"], []), package_name, language_mode)
        for description in described["targets"]
        if description.get("module_type") == "SwiftTarget"
    }


def with_dependencies(targets, names):
    """`names` and the targets they depend on, each after its dependencies."""
    order, done = [], set()

    def visit(name):
        if name in done:
            return
        done.add(name)
        for dependency in targets[name].dependencies:
            if dependency in targets:
                visit(dependency)
        order.append(name)

    for name in sorted(names):
        visit(name)
    return order


# MARK: - Which files


class SourceFile:
    """A source file's mentions of the stubbed frameworks."""

    def __init__(self, path, frameworks):
        self.path = path
        self.conditions, self.imports, self.platform_lines = set(), set(), []
        self.skip_reason = None
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.strip().startswith(SKIP_MARKER):
                self.skip_reason = line.strip()[len(SKIP_MARKER):].strip() or "(no reason given)"
            if (match := IMPORT_LINE.match(line)) and match.group(1) in frameworks:
                self.imports.add(match.group(1))
            if condition := CONDITION_LINE.match(line):
                tested = set(CAN_IMPORT.findall(condition.group(1))) & frameworks
                self.conditions |= tested
                if PLATFORM_CONDITION.search(condition.group(1)):
                    self.platform_lines.append((number, line.strip(), bool(tested)))

    @property
    def frameworks(self):
        return self.conditions | self.imports


# MARK: - Compiling


def frontend_command(mode, target, inputs, search_paths, extra=()):
    """The swift-frontend command the driver runs for `mode` over `inputs`, in one job."""
    driver = ["swiftc", "-###", mode, "-wmo", "-module-name", target.module, *target.flags]
    for path in search_paths:
        driver += ["-I", str(path)]
    driver += [*extra, *[str(path) for path in inputs]]
    jobs = [line for line in run(driver).stdout.splitlines() if " -frontend " in line]
    if len(jobs) != 1:
        raise CheckFailed(f"expected one frontend job from:\n$ {shlex.join(driver)}")
    command, parts = [], iter(shlex.split(jobs[0]))
    for part in parts:
        if part == "-supplementary-output-file-map":
            next(parts)  # a file the driver writes for its own run only; these jobs need no extra outputs
        elif part != "-whole-module-optimization":
            command.append(part)
    return command


def emit_module(target, search_paths, module_dir):
    """The target's module, declarations only (function bodies are not checked here)."""
    command = frontend_command(
        "-emit-module", target, target.sources, search_paths,
        ["-enable-testing", "-emit-module-path", str(module_dir / f"{target.module}.swiftmodule")])
    run(command + ["-experimental-skip-non-inlinable-function-bodies"])


def typecheck_command(target, sources, primaries, search_paths):
    """Type-checks the bodies of `primaries`, with the rest of `sources` read for declarations; any
    warning fails, as the project builds with none."""
    command = frontend_command("-typecheck", target, sources, search_paths)
    primary_set = {str(path) for path in primaries}
    marked = []
    for part in command:
        if part in primary_set:
            marked.append("-primary-file")
        marked.append(part)
    return marked + ["-warnings-as-errors"]


def imported_modules(target, source, search_paths):
    """The modules `source` imports in the branches active with the stubs visible."""
    command = frontend_command("-typecheck", target, [source], search_paths)
    command[command.index("-typecheck")] = "-emit-imported-modules"
    return set(run(command).stdout.split())


# MARK: - The check


def check(work_dir, self_check):
    started = time.monotonic()
    stub_dir, module_dir = work_dir / "stubs", work_dir / "modules"
    stub_dir.mkdir()
    module_dir.mkdir()
    search_paths = [stub_dir, module_dir]

    stubs = compile_stubs(stub_dir)
    frameworks = set(stubs)
    targets = package_targets()

    files_by_target = {}
    for target in targets.values():
        for path in target.sources:
            source = SourceFile(path, frameworks)
            if source.frameworks:
                files_by_target.setdefault(target.name, []).append(source)
    order = with_dependencies(targets, files_by_target)
    needed_as_module = {dependency for name in order for dependency in targets[name].dependencies}

    print(f"Stub frameworks (Tests/AppleStubs): {', '.join(stubs)}")
    problems = []
    compiled, skipped, unreachable = [], [], []
    for name in order:
        target = targets[name]
        if name in needed_as_module:
            emit_module(target, search_paths, module_dir)
        sources = files_by_target.get(name, [])
        primaries = [source for source in sources if not source.skip_reason]
        skipped += [(source, name) for source in sources if source.skip_reason]
        for source in primaries:
            active = imported_modules(target, source.path, search_paths)
            for module in sorted(source.imports - active):
                problems.append(
                    f"{relative(source.path)}: `import {module}` sits in a branch that stays off on Linux even with "
                    f"the stub: write its condition so it holds wherever {module} can be imported, such as "
                    f"`canImport({module}) && !os(tvOS) && !os(watchOS)` rather than "
                    f"`canImport({module}) && (os(iOS) || os(macOS))`.")
            for number, line, tests_framework in source.platform_lines:
                if tests_framework:
                    problems.append(
                        f"{relative(source.path)}:{number}: `{line}` tests a stubbed framework together with a "
                        f"platform, so the check cannot enter it: exclude platforms with `!os(...)` instead.")
                else:
                    unreachable.append(f"{relative(source.path)}:{number}: {line}")
        if primaries:
            result = run(typecheck_command(target, target.sources, [s.path for s in primaries], search_paths),
                         check=False)
            if result.returncode != 0:
                print(result.stdout + result.stderr, end="")
                problems.append(f"{name}: the Apple-only code does not type-check against the stubs (above).")
            compiled += [(source, name) for source in primaries]

    print("Compiled, with the stubs visible (function bodies type-checked):")
    for source, name in compiled:
        print(f"  {relative(source.path)}  [{name}; {', '.join(sorted(source.frameworks))}]")
    modules = [name for name in order if name in needed_as_module]
    print(f"Read for declarations only: the other files of those targets, and the modules {', '.join(modules)}")
    if skipped:
        print("Not compiled (marked in the file):")
        for source, name in skipped:
            print(f"  {relative(source.path)}  [{name}]: {source.skip_reason}")
    if unreachable:
        print("Branches inside them no Linux check can enter (platform conditions):")
        for line in unreachable:
            print(f"  {line}")

    if self_check and not problems:
        problems += run_self_checks(targets, files_by_target, frameworks, search_paths, work_dir)

    if problems:
        print("\nFAILED:", file=sys.stderr)
        for problem in problems:
            print(f"- {problem}", file=sys.stderr)
        return 1
    print(f"OK: {len(compiled)} files in {len({name for _, name in compiled})} targets type-check against the "
          f"stubs ({time.monotonic() - started:.1f} s).")
    return 0


def run_self_checks(targets, files_by_target, frameworks, search_paths, work_dir):
    """Plants every mistake of SELF_CHECKS, each on its own line just inside the first
    `#if canImport(<stubbed framework>)` of a copy of its file, type-checks each target once with its
    planted copies, and expects every mistake reported at its line."""
    problems = []
    print("Self-check: mistakes planted just inside the Apple-only branch of copies of the files:")
    plants = {}  # target -> {original path: (planted path, [(line, case)])}
    for file, description, code, expected in SELF_CHECKS:
        path = ROOT / file
        name = next((name for name, sources in files_by_target.items()
                     if any(source.path == path and not source.skip_reason for source in sources)), None)
        if name is None:
            problems.append(f"self-check: {file} is not among the compiled files.")
            continue
        planted, cases = plants.setdefault(name, {}).setdefault(
            path, (work_dir / "self-check" / name / path.name, []))
        cases.append((None, (file, description, code, expected)))
    for name, files in plants.items():
        for path, (planted, cases) in files.items():
            lines = path.read_text().splitlines(keepends=True)
            guard = next((index for index, line in enumerate(lines)
                          if (match := CONDITION_LINE.match(line))
                          and set(CAN_IMPORT.findall(match.group(1))) & frameworks), None)
            if guard is None:
                problems.append(f"self-check: {relative(path)} has no `#if canImport(...)` of a stubbed framework.")
                cases.clear()
                continue
            cases[:] = [(guard + 2 + offset, case) for offset, (_, case) in enumerate(cases)]
            planted.parent.mkdir(parents=True, exist_ok=True)
            planted.write_text("".join(lines[: guard + 1] + [case[2] + "\n" for _, case in cases] + lines[guard + 1:]))
        target = targets[name]
        replaced = {path: planted for path, (planted, cases) in files.items() if cases}
        if not replaced:
            continue
        sources = [replaced.get(source, source) for source in target.sources]
        result = run(typecheck_command(target, sources, replaced.values(), search_paths), check=False)
        output = result.stdout + result.stderr
        for planted, cases in files.values():
            for line_number, (file, description, _, expected) in cases:
                reported = [line.split("error:", 1)[1].strip() for line in output.splitlines()
                            if line.startswith(f"{planted}:{line_number}:") and "error:" in line]
                if result.returncode != 0 and any(expected in message for message in reported):
                    print(f"  {file}: {description}: caught ({next(m for m in reported if expected in m)})")
                else:
                    print(output, end="")
                    problems.append(f"self-check: {file}: {description}: not reported at the planted line.")
    return problems


def main():
    self_check = "--self-check" in sys.argv[1:]
    unknown = [argument for argument in sys.argv[1:] if argument != "--self-check"]
    if unknown:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="apple-typecheck-") as work_dir:
        try:
            return check(Path(work_dir), self_check)
        except CheckFailed as failure:
            print(f"FAILED:\n{failure}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
