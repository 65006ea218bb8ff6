package io.kvroute.platform.health;

import java.util.Objects;

/** Whether a process passes one of its health checks, and why, in words an operator reads. */
public record HealthStatus(boolean up, String detail) {
    public HealthStatus {
        Objects.requireNonNull(detail, "detail");
    }

    public static HealthStatus up(String detail) {
        return new HealthStatus(true, detail);
    }

    public static HealthStatus down(String detail) {
        return new HealthStatus(false, detail);
    }

    /** The body served for this status: {@code {"status":"UP","detail":"..."}}. */
    public String toJson() {
        StringBuilder json = new StringBuilder("{\"status\":\"").append(up ? "UP" : "DOWN").append("\",\"detail\":\"");
        for (char c : detail.toCharArray()) {
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append("\"}").toString();
    }
}
