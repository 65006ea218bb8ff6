package io.kvroute.worker.engine.openai.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * A strict parser of the subset of the Prometheus text exposition format (version 0.0.4) that
 * inference servers serve: {@code name{label="value",...} value [timestamp]} lines, {@code #}
 * comment lines ({@code HELP}, {@code TYPE}, {@code EOF}) and blank lines. A line outside that
 * subset fails the whole page, so a half-understood page is never mistaken for a server's state.
 * The Prometheus Java client 1.x ships only writers of this format, hence this parser.
 */
public final class PrometheusText {

    /** One sample: a metric name, its labels and its value. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private final Map<String, List<Sample>> byName;

    private PrometheusText(Map<String, List<Sample>> byName) {
        this.byName = byName;
    }

    /** Parses a whole page; throws {@link IllegalArgumentException} naming the first bad line. */
    public static PrometheusText parse(String page) {
        Map<String, List<Sample>> byName = new LinkedHashMap<>();
        String[] lines = page.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            try {
                Sample sample = new LineParser(line).sample();
                byName.computeIfAbsent(sample.name(), n -> new ArrayList<>()).add(sample);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + (i + 1) + " of the metrics page: " + e.getMessage(), e);
            }
        }
        return new PrometheusText(byName);
    }

    /** Every metric name on the page, in page order. */
    public java.util.Set<String> names() {
        return Collections.unmodifiableSet(byName.keySet());
    }

    public boolean has(String name) {
        return byName.containsKey(name);
    }

    public List<Sample> samples(String name) {
        return Collections.unmodifiableList(byName.getOrDefault(name, List.of()));
    }

    /** The sum over every label set of {@code name}; empty if the page has no such metric. */
    public OptionalDouble sum(String name) {
        List<Sample> samples = byName.get(name);
        return samples == null ? OptionalDouble.empty() : OptionalDouble.of(samples.stream().mapToDouble(Sample::value).sum());
    }

    /** The mean over every label set of {@code name} (for ratios, which do not add up); empty if absent. */
    public OptionalDouble mean(String name) {
        List<Sample> samples = byName.get(name);
        return samples == null ? OptionalDouble.empty() : samples.stream().mapToDouble(Sample::value).average();
    }

    /** Reads one sample line, character by character. */
    private static final class LineParser {
        private final String line;
        private int pos;

        LineParser(String line) {
            this.line = line;
        }

        Sample sample() {
            skipSpaces();
            String name = name();
            Map<String, String> labels = Map.of();
            boolean spaced = skipSpaces();
            if (!spaced && peek() == '{') {
                labels = labels();
                spaced = skipSpaces();
            }
            if (!spaced) {
                throw new IllegalArgumentException("expected a space before the value of " + name);
            }
            String value = token();
            double parsed = number(value);
            if (skipSpaces() && pos < line.length()) {
                String timestamp = token();
                if (!timestamp.matches("-?[0-9]+")) {
                    throw new IllegalArgumentException("bad timestamp '" + timestamp + "' of " + name);
                }
                skipSpaces();
            }
            if (pos < line.length()) {
                throw new IllegalArgumentException("unexpected text after the sample of " + name);
            }
            return new Sample(name, labels, parsed);
        }

        private String name() {
            int start = pos;
            while (pos < line.length() && isNameChar(line.charAt(pos), pos == start)) {
                pos++;
            }
            if (pos == start) {
                throw new IllegalArgumentException("expected a metric name");
            }
            return line.substring(start, pos);
        }

        private Map<String, String> labels() {
            Map<String, String> labels = new LinkedHashMap<>();
            pos++;
            skipSpaces();
            while (peek() != '}') {
                String label = name();
                skipSpaces();
                expect('=');
                skipSpaces();
                labels.put(label, quoted());
                skipSpaces();
                if (peek() == ',') {
                    pos++;
                    skipSpaces();
                } else if (peek() != '}') {
                    throw new IllegalArgumentException("expected ',' or '}' in labels at column " + (pos + 1));
                }
            }
            pos++;
            return labels;
        }

        private String quoted() {
            expect('"');
            StringBuilder value = new StringBuilder();
            while (true) {
                if (pos >= line.length()) {
                    throw new IllegalArgumentException("unterminated label value");
                }
                char c = line.charAt(pos++);
                if (c == '"') {
                    return value.toString();
                }
                if (c == '\\') {
                    if (pos >= line.length()) {
                        throw new IllegalArgumentException("unterminated escape in a label value");
                    }
                    char e = line.charAt(pos++);
                    switch (e) {
                        case '\\' -> value.append('\\');
                        case '"' -> value.append('"');
                        case 'n' -> value.append('\n');
                        default -> throw new IllegalArgumentException("bad escape \\" + e + " in a label value");
                    }
                } else {
                    value.append(c);
                }
            }
        }

        private String token() {
            int start = pos;
            while (pos < line.length() && line.charAt(pos) != ' ' && line.charAt(pos) != '\t') {
                pos++;
            }
            if (pos == start) {
                throw new IllegalArgumentException("expected a value at column " + (pos + 1));
            }
            return line.substring(start, pos);
        }

        private static double number(String value) {
            switch (value) {
                case "NaN":
                    return Double.NaN;
                case "+Inf":
                case "Inf":
                    return Double.POSITIVE_INFINITY;
                case "-Inf":
                    return Double.NEGATIVE_INFINITY;
                default:
                    if (!value.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
                        throw new IllegalArgumentException("bad value '" + value + "'");
                    }
                    return Double.parseDouble(value);
            }
        }

        private boolean skipSpaces() {
            int start = pos;
            while (pos < line.length() && (line.charAt(pos) == ' ' || line.charAt(pos) == '\t')) {
                pos++;
            }
            return pos > start;
        }

        private char peek() {
            if (pos >= line.length()) {
                throw new IllegalArgumentException("line ends early");
            }
            return line.charAt(pos);
        }

        private void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected '" + c + "' at column " + (pos + 1));
            }
            pos++;
        }

        private static boolean isNameChar(char c, boolean first) {
            return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || !first && c >= '0' && c <= '9';
        }
    }
}
