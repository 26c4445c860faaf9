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

Each file is compiled as each Apple platform sees it: a copy with its `#if` conditions set for the
platform (`os(...)`, `targetEnvironment(...)`, `canImport(Darwin)` true, `canImport(Glibc)` false),
once per platform whose compiled code differs (macOS and iOS for most). That brings in the Darwin
branches of the files around the frameworks (FileCredentialStore's `#if canImport(Darwin)`, the
loopback agent's `#if os(macOS)`), against Tests/AppleStubs/Darwin.swift: Glibc, which the POSIX
calls are type-checked against, and what Darwin has beyond it.

Then availability, which Swift does not check on Linux (Scripts/apple_availability.py): every use
of an API in Tests/AppleStubs/availability.json, in the code each platform compiles, must be
introduced at Package.swift's minimum for that platform or under an `#available` / `@available`
guard that raises it, and must not be unavailable there. A use of an API deprecated at the
versions the use is compiled for fails (Apple's compiler warns, and the project builds with no
warning); one deprecated only later (or "to be deprecated") is listed, not failed.

    python3 Scripts/apple-typecheck.py               # the check
    python3 Scripts/apple-typecheck.py --self-check  # the check, then proof that it fails on
                                                     # mistakes planted in copies of Apple-only files

Covering another framework is one more stub file and its APIs in availability.json; covering
another file needs nothing. A file whose Apple-only code cannot compile on Linux at all says so on a
line of its own: `// apple-typecheck: not compiled: <reason>`; a file whose platform branches differ
only in a constant, `// apple-typecheck: one variant: <reason>` (it is compiled in the variants the
other files need, and makes none of its own).
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.dont_write_bytecode = True  # no __pycache__ in the work tree
import apple_availability as availability  # noqa: E402

STUB_DIR = ROOT / "Tests" / "AppleStubs"
AVAILABILITY_TABLE = STUB_DIR / "availability.json"
SKIP_MARKER = "// apple-typecheck: not compiled:"
# A file whose platform branches differ too little to compile it once per platform (one constant per
# platform) says so: its branches do not make platforms of their own in plan_variants.
ONE_VARIANT_MARKER = "// apple-typecheck: one variant:"
# Stubs of the platform itself rather than of a framework: a file is not selected for importing
# one, only compiled with it in its platform variants.
PLATFORM_STUBS = {"Darwin"}
# A condition that only an Apple platform's compiler answers: the files of a checked library target
# holding one are compiled in the platform variants too.
DARWIN_CONDITION = re.compile(
    r"canImport\(Darwin\)|\bos\((?:macOS|iOS|tvOS|watchOS|visionOS)\)|targetEnvironment\(macCatalyst\)")

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

# Mistakes the availability check must report, planted in copies of the files as text: (file, what
# the mistake is, text replaced (`None`: the planted code goes just inside the first `#if
# canImport(...)`), planted code, part of the expected report).
AVAILABILITY_SELF_CHECKS = [
    (
        "Sources/NativeAuth/Presence/LocalAuthenticationPresenceChecker.swift",
        "an iOS 18 API used with no `#available` guard",
        None,
        "func appleTypecheckSelfCheck(_ context: LAContext) -> Data? { context.domainState.biometry.stateHash }",
        "is introduced in iOS 18.0",
    ),
    (
        "Sources/NativeAuth/Storage/KeychainCredentialStore.swift",
        "an API tvOS does not have, in a file compiled for tvOS",
        None,
        "import AuthenticationServices\n"
        "func appleTypecheckSelfCheck(_ session: ASWebAuthenticationSession) { session.prefersEphemeralWebBrowserSession = true }",
        "is unavailable on tvOS",
    ),
    (
        "Sources/NativeAuth/UserAgents/WebAuthenticationSessionUserAgent.swift",
        "a wrong `#if os` condition: the sign-in sheet's file compiled for watchOS",
        "#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)",
        "#if canImport(AuthenticationServices) && !os(tvOS)",
        "is unavailable on watchOS",
    ),
]

# Mistakes in Darwin branches the platform variants must report, planted in copies: (file, what the
# mistake is, text replaced, replacement, platform, part of the expected message).
DARWIN_SELF_CHECKS = [
    (
        "Sources/NativeAuth/Storage/FileCredentialStore+Files.swift",
        "a misspelt Darwin constant in the `#if canImport(Darwin)` branch (F_FULLSYNC for F_FULLFSYNC)",
        "fcntl(descriptor, F_FULLFSYNC)",
        "fcntl(descriptor, F_FULLSYNC)",
        "macOS",
        "cannot find 'F_FULLSYNC' in scope",
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
    """The package's Swift targets, and its manifest."""
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
    }, manifest


def package_modules(manifest, targets):
    """Each module of the package, with the Apple platforms it is built for when a dependency on it
    is limited to some (`None`: every platform)."""
    modules = {target.module: None for target in targets.values()}
    for target in manifest["targets"]:
        for dependency in target.get("dependencies") or []:
            (_, value), = dependency.items()
            if isinstance(value, list) and len(value) > 1 and value[1] and value[1].get("platformNames"):
                modules[re.sub(r"\W", "_", value[0])] = {
                    availability.MANIFEST_NAME[name] for name in value[1]["platformNames"]
                    if name in availability.MANIFEST_NAME}
    return modules


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


# MARK: - Platform variants


PLATFORM_PREDICATE = re.compile(r"\b(os|targetEnvironment|canImport)\(\s*(\w+)[^()]*\)")
# The system modules whose `canImport` tells an Apple platform from another system.
NON_APPLE_SYSTEM = {"Glibc", "Musl", "WinSDK", "Android", "Bionic", "WASILibc", "ucrt"}


def rewrite_conditions(text, platform):
    """`text` with the platform tests of its `#if` / `#elseif` lines answered as `platform`'s compiler
    answers them; every other test (`canImport` of frameworks, FoundationNetworking and the
    package's modules, flags) is left to the compiler. Lines keep their numbers."""

    def answer(match):
        kind, name = match.group(1), match.group(2)
        if kind == "os":
            return "true" if name == availability.OS_NAME[platform] else "false"
        if kind == "targetEnvironment":
            return "true" if name == "macCatalyst" and platform == "macCatalyst" else "false"
        if name == "Darwin":
            return "true"
        if name in NON_APPLE_SYSTEM:
            return "false"
        return match.group(0)

    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if CONDITION_LINE.match(line):
            code, _, comment = line.partition("//")
            lines[index] = PLATFORM_PREDICATE.sub(answer, code) + ("//" + comment if comment else "")
    return "".join(lines)


def plan_variants(paths):
    """The platforms to compile `paths` for: each platform's copies, unless every file compiles no
    code there that one platform already planned compiles (tvOS's copies, with the sign-in sheet
    and Face ID left out, add nothing to iOS's), the branches of files marked ONE_VARIANT_MARKER
    aside. [(platform, {path: text}, platforms it covers)]"""
    texts = {path: path.read_text() for path in paths}
    variants = []
    for platform in availability.PLATFORMS:
        rewritten = {path: rewrite_conditions(text, platform) for path, text in texts.items()}
        masks = {path: availability.active_lines(text.splitlines(), lambda kind, argument: True)
                 for path, text in rewritten.items()}
        covering = next((variant for variant in variants if all(
            all(b or not a for a, b in zip(masks[path], variant[3][path]))
            for path in paths if ONE_VARIANT_MARKER not in texts[path])), None)
        if covering:
            covering[2].append(platform)
            continue
        variants.append((platform, rewritten, [platform], masks))
    return [(platform, rewritten, covers) for platform, rewritten, covers, _ in variants]


def module_names(text):
    """Every module a file imports or tests with `canImport`."""
    names = set()
    for line in text.splitlines():
        if match := IMPORT_LINE.match(line):
            names.add(match.group(1))
        if condition := CONDITION_LINE.match(line):
            names |= set(CAN_IMPORT.findall(condition.group(1)))
    return names


# MARK: - The check


def check(work_dir, self_check):
    started = time.monotonic()
    stub_dir, module_dir = work_dir / "stubs", work_dir / "modules"
    stub_dir.mkdir()
    module_dir.mkdir()
    search_paths = [stub_dir, module_dir]

    stubs = compile_stubs(stub_dir)
    frameworks = set(stubs) - PLATFORM_STUBS
    targets, manifest = package_targets()
    table, problems = availability.load_table(AVAILABILITY_TABLE)
    minimums = availability.package_minimums(manifest)
    modules = package_modules(manifest, targets)

    files_by_target = {}
    for target in targets.values():
        for path in target.sources:
            source = SourceFile(path, frameworks)
            if source.frameworks:
                files_by_target.setdefault(target.name, []).append(source)
    order = with_dependencies(targets, files_by_target)
    needed_as_module = {dependency for name in order for dependency in targets[name].dependencies}
    # The files compiled in the platform variants: those of the frameworks and, in a library target
    # that has some, the files with Darwin branches.
    darwin_files = {
        name: [path for path in targets[name].sources
               if targets[name].kind != "test" and DARWIN_CONDITION.search(path.read_text())
               and path not in {source.path for source in files_by_target[name]}]
        for name in files_by_target}

    print(f"Stub modules (Tests/AppleStubs): {', '.join(stubs)}")
    print("Platform minimums (Package.swift, SwiftPM's defaults for the rest): " + ", ".join(
        f"{platform} {availability.version_text(minimums[platform])}" for platform in availability.PLATFORMS))
    compiled, skipped, variant_lines = [], [], []
    plans = {}
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
        paths = [source.path for source in primaries] + darwin_files.get(name, [])
        if not paths:
            continue
        plans[name] = plan_variants(paths)
        for platform, rewritten, covers in plans[name]:
            variant_dir = work_dir / "variants" / platform / name
            variant_dir.mkdir(parents=True)
            copies = {}
            for path, text in rewritten.items():
                copies[path] = variant_dir / path.name
                copies[path].write_text(text)
            variant_sources = [copies.get(source, source) for source in target.sources]
            result = run(typecheck_command(target, variant_sources, copies.values(), search_paths), check=False)
            if result.returncode != 0:
                output = result.stdout + result.stderr
                for path, copy in copies.items():
                    output = output.replace(str(copy), relative(path))
                print(output, end="")
                problems.append(
                    f"{name}: the Apple-only code, as {platform} compiles it, does not type-check against the stubs "
                    f"(above).")
            variant_lines.append(f"  {name}: as {platform} compiles it (covers {', '.join(covers)})")
        compiled += [(path, name) for path in paths]

    # Availability, on every platform, in every file compiled above and every one marked as not
    # compiled (its text can be read all the same).
    notes = []
    for path, _ in compiled + [(source.path, name) for source, name in skipped]:
        text = path.read_text()
        found, noted = availability.check_file(
            path, text, module_names(text), table, minimums, modules, relative(path))
        problems += found
        notes += noted

    print("Compiled, with the stubs visible (function bodies type-checked), in copies with the platform's "
          "`#if` answers:")
    for path, name in compiled:
        print(f"  {relative(path)}  [{name}]")
    print("Platform variants compiled:")
    print("\n".join(variant_lines))
    used_modules = [name for name in order if name in needed_as_module]
    print(f"Read for declarations only: the other files of those targets, and the modules {', '.join(used_modules)}")
    if skipped:
        print("Not compiled (marked in the file):")
        for source, name in skipped:
            print(f"  {relative(source.path)}  [{name}]: {source.skip_reason}")
    print(f"Availability: {len(table['apis'])} APIs in {relative(AVAILABILITY_TABLE)}, checked on "
          f"{', '.join(availability.PLATFORMS)}.")
    if notes:
        print("Deprecated later than the oldest systems they run on (not failed):")
        for note in notes:
            print(f"  {note}")

    if self_check and not problems:
        problems += run_self_checks(targets, files_by_target, plans, frameworks, search_paths, work_dir)
        problems += run_availability_self_checks(frameworks, table, minimums, modules)

    if problems:
        print("\nFAILED:", file=sys.stderr)
        for problem in problems:
            print(f"- {problem}", file=sys.stderr)
        return 1
    print(f"OK: {len(compiled)} files in {len({name for _, name in compiled})} targets type-check against the "
          f"stubs, and their uses of Apple APIs are available where they are compiled "
          f"({time.monotonic() - started:.1f} s).")
    return 0


def run_self_checks(targets, files_by_target, plans, frameworks, search_paths, work_dir):
    """Plants every mistake of SELF_CHECKS, each on its own line just inside the first
    `#if canImport(<stubbed framework>)` of a copy of its file, and every one of DARWIN_SELF_CHECKS
    in place of the text it replaces; type-checks each target once with its planted copies, in the
    first platform variant (macOS), and expects every mistake reported at its line."""
    problems = []
    print("Self-check: mistakes planted in copies of the files:")
    plants = {}  # target -> {original path: [(kind, case)]}
    for case in SELF_CHECKS + [(file, description, (old, new), expected)
                               for file, description, old, new, _, expected in DARWIN_SELF_CHECKS]:
        path = ROOT / case[0]
        name = next((name for name, paths in plans.items()
                     if any(path in rewritten for _, rewritten, _ in paths[:1])), None)
        if name is None:
            problems.append(f"self-check: {case[0]} is not among the compiled files.")
            continue
        plants.setdefault(name, {}).setdefault(path, []).append(case)
    for name, files in plants.items():
        platform, rewritten, _ = plans[name][0]
        expectations, copies = [], {}
        for path, cases in files.items():
            lines = path.read_text().splitlines(keepends=True)
            inserted = [case for case in cases if isinstance(case[2], str)]
            for file, description, (old, new), expected in [case for case in cases if not isinstance(case[2], str)]:
                number = next((index for index, line in enumerate(lines) if old in line), None)
                if number is None:
                    problems.append(f"self-check: {file}: `{old}` is not in the file.")
                    continue
                lines[number] = lines[number].replace(old, new, 1)
                expectations.append((path, number + 1, file, description, expected))
            if inserted:
                guard = next((index for index, line in enumerate(lines)
                              if (match := CONDITION_LINE.match(line))
                              and set(CAN_IMPORT.findall(match.group(1))) & frameworks), None)
                if guard is None:
                    problems.append(f"self-check: {relative(path)} has no `#if canImport(...)` of a stubbed framework.")
                    continue
                expectations = [(p, n + len(inserted) if p == path and n > guard + 1 else n, *rest)
                                for p, n, *rest in expectations]
                for offset, (file, description, code, expected) in enumerate(inserted):
                    expectations.append((path, guard + 2 + offset, file, description, expected))
                lines = lines[: guard + 1] + [case[2] + "\n" for case in inserted] + lines[guard + 1:]
            copies[path] = rewrite_conditions("".join(lines), platform)
        target = targets[name]
        planted_dir = work_dir / "self-check" / name
        planted_dir.mkdir(parents=True, exist_ok=True)
        written = {}
        for path in target.sources:
            if path in copies or path in rewritten:
                written[path] = planted_dir / path.name
                written[path].write_text(copies.get(path) or rewritten[path])
        sources = [written.get(source, source) for source in target.sources]
        result = run(typecheck_command(target, sources, written.values(), search_paths), check=False)
        output = result.stdout + result.stderr
        for path, line_number, file, description, expected in expectations:
            reported = [line.split("error:", 1)[1].strip() for line in output.splitlines()
                        if line.startswith(f"{written[path]}:{line_number}:") and "error:" in line]
            if result.returncode != 0 and any(expected in message for message in reported):
                print(f"  {file}: {description} ({platform}): caught "
                      f"({next(m for m in reported if expected in m)})")
            else:
                print(output, end="")
                problems.append(f"self-check: {file}: {description}: not reported at the planted line.")
    return problems


def run_availability_self_checks(frameworks, table, minimums, modules):
    """Plants every mistake of AVAILABILITY_SELF_CHECKS in the text of a copy of its file and expects
    the availability check to report it (at the planted line, for planted code)."""
    problems = []
    for file, description, old, new, expected in AVAILABILITY_SELF_CHECKS:
        path = ROOT / file
        lines = path.read_text().splitlines(keepends=True)
        planted_lines = set()
        if old is None:
            guard = next((index for index, line in enumerate(lines)
                          if (match := CONDITION_LINE.match(line))
                          and set(CAN_IMPORT.findall(match.group(1))) & frameworks), None)
            if guard is None:
                problems.append(f"self-check: {file} has no `#if canImport(...)` of a stubbed framework.")
                continue
            planted = [line + "\n" for line in new.split("\n")]
            planted_lines = set(range(guard + 2, guard + 2 + len(planted)))
            lines = lines[: guard + 1] + planted + lines[guard + 1:]
        else:
            number = next((index for index, line in enumerate(lines) if line.rstrip("\n") == old), None)
            if number is None:
                problems.append(f"self-check: {file}: the line `{old}` is not in the file.")
                continue
            lines[number] = new + "\n"
        text = "".join(lines)
        found, _ = availability.check_file(path, text, module_names(text), table, minimums, modules, file)
        hits = [problem for problem in found if expected in problem
                and (not planted_lines or int(problem.split(":", 2)[1]) in planted_lines)]
        if hits:
            print(f"  {file}: {description}: caught ({hits[0][len(file) + 1:][:160]}...)")
        else:
            for problem in found:
                print(f"    {problem}")
            problems.append(f"self-check: {file}: {description}: not reported by the availability check.")
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
