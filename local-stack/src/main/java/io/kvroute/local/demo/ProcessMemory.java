package io.kvroute.local.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Resident set size of processes, read from /proc (Linux); 0 where it cannot be read. */
public final class ProcessMemory {
    private ProcessMemory() {
    }

    public static long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.trim().split("\\s+");
                    return Long.parseLong(parts[1]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    public static long totalRssBytes(List<Long> pids) {
        return pids.stream().mapToLong(ProcessMemory::rssBytes).sum();
    }
}
