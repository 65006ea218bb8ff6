package io.kvroute.bench.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an Azure LLM inference trace (CSV: {@code TIMESTAMP,ContextTokens,GeneratedTokens}). It has
 * real arrivals but no prefix information, so every request gets blocks of its own: no policy can
 * win by prefix locality on it, only by load balancing.
 */
public final class AzureTrace {
    public static final int BLOCK_TOKENS = 512;
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSSS]");
    /** Block ids of this trace start here, far from other traces' ids. */
    private static final long FIRST_BLOCK_ID = 1L << 40;

    private AzureTrace() {
    }

    public static List<TraceRequest> read(Path path, int limit) {
        List<TraceRequest> requests = new ArrayList<>();
        long nextBlockId = FIRST_BLOCK_ID;
        LocalDateTime first = null;
        try (BufferedReader reader = Files.newBufferedReader(path)) {
            String header = reader.readLine();
            if (header == null || !header.trim().equalsIgnoreCase("TIMESTAMP,ContextTokens,GeneratedTokens")) {
                throw new IllegalArgumentException(path + " line 1 is not the Azure trace header TIMESTAMP,ContextTokens,GeneratedTokens: " + header);
            }
            String line;
            int lineNumber = 1;
            while ((line = reader.readLine()) != null && requests.size() < limit) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                String[] fields = line.split(",");
                try {
                    LocalDateTime at = LocalDateTime.parse(fields[0].trim(), TIMESTAMP);
                    int input = Integer.parseInt(fields[1].trim());
                    int output = Integer.parseInt(fields[2].trim());
                    if (input <= 0 || output <= 0) {
                        throw new IllegalArgumentException("token counts must be positive");
                    }
                    if (first == null) {
                        first = at;
                    }
                    int blocks = (input + BLOCK_TOKENS - 1) / BLOCK_TOKENS;
                    long[] ids = new long[blocks];
                    for (int b = 0; b < blocks; b++) {
                        ids[b] = nextBlockId++;
                    }
                    requests.add(new TraceRequest(ChronoUnit.MILLIS.between(first, at), input, output, ids, BLOCK_TOKENS));
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(path + " line " + lineNumber + " is not an Azure trace record: " + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read trace " + path + ": " + e.getMessage(), e);
        }
        requests.sort(java.util.Comparator.comparingLong(TraceRequest::arrivalMs));
        return requests;
    }
}
