package io.kvroute.local.console;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's headless Chromium, run once per page: the DOM after the page's scripts ran
 * ({@code --dump-dom}) or a screenshot. Each run gets its own profile directory and is killed if it
 * outlives its time limit.
 */
final class HeadlessChromium {
    static final Path BINARY = Path.of("/usr/bin/chromium");
    static final String MISSING = "Debian's chromium is not installed at " + BINARY + " (.ci/run installs it: apt-get install -y chromium)";
    private static final long TIME_LIMIT_S = 30;

    private final Path profiles;
    private int runs;

    HeadlessChromium(Path profiles) {
        this.profiles = profiles;
    }

    static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    /** The serialised DOM once the page settled, or the time budget (virtual time: timers run fast, network waits) ran out. */
    String dumpDom(String url, int virtualTimeBudgetMs) throws IOException, InterruptedException {
        return run(url, "--virtual-time-budget=" + virtualTimeBudgetMs, "--dump-dom");
    }

    void screenshot(String url, Path png, int width, int height) throws IOException, InterruptedException {
        run(url, "--virtual-time-budget=4000", "--hide-scrollbars", "--window-size=" + width + "," + height,
                "--screenshot=" + png.toAbsolutePath());
    }

    private String run(String url, String... extra) throws IOException, InterruptedException {
        Path profile = Files.createDirectories(profiles.resolve("chromium-" + (++runs)));
        List<String> command = new ArrayList<>(List.of(BINARY.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--user-data-dir=" + profile));
        command.addAll(List.of(extra));
        command.add(url);
        Path err = profiles.resolve("chromium-" + runs + ".log");
        Process process = new ProcessBuilder(command).redirectError(err.toFile()).start();
        byte[] out;
        try {
            out = process.getInputStream().readAllBytes();
            if (!process.waitFor(TIME_LIMIT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException("chromium did not finish " + url + " in " + TIME_LIMIT_S + " s");
            }
        } finally {
            process.destroyForcibly();
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("chromium exited " + process.exitValue() + " on " + url + ": " + Files.readString(err));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
