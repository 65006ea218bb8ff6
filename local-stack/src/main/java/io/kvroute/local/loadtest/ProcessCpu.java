package io.kvroute.local.loadtest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * CPU time a process has used (user + system, all its threads), read from Linux's
 * {@code /proc/<pid>/stat}: fields 14 ({@code utime}) and 15 ({@code stime}), in clock ticks.
 * The resolution is one tick (10 ms at the usual 100 Hz), fine for totals of seconds.
 */
public final class ProcessCpu {
    private static final long DEFAULT_TICKS_PER_SECOND = 100;
    private static volatile long ticksPerSecond;

    private ProcessCpu() {
    }

    /** CPU seconds used so far by {@code pid}, or -1 if it cannot be read (the process is gone, or no /proc). */
    public static double seconds(long pid) {
        try {
            return parseTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))) / (double) ticksPerSecond();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * utime + stime of a {@code /proc/<pid>/stat} line. The command name (field 2) is in parentheses
     * and may itself hold spaces and parentheses, so fields are counted from the last ')'.
     */
    static long parseTicks(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: no ')' after the command name");
        }
        String[] fields = stat.substring(close + 1).trim().split("\\s+");
        // fields[0] is field 3 (state), so field n is fields[n - 3]
        if (fields.length < 13) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + fields.length + " fields after the command name");
        }
        return Long.parseLong(fields[14 - 3]) + Long.parseLong(fields[15 - 3]);
    }

    /** The kernel's USER_HZ ({@code getconf CLK_TCK}), 100 if it cannot be asked. */
    static long ticksPerSecond() {
        long known = ticksPerSecond;
        if (known > 0) {
            return known;
        }
        long value = DEFAULT_TICKS_PER_SECOND;
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes()).trim();
            if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
                value = Long.parseLong(out);
            }
        } catch (IOException | NumberFormatException e) {
            // keep the default
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ticksPerSecond = value;
        return value;
    }
}
