package io.kvroute.ingress.client;

/** Some requests could not be written to the requests topic; {@link #failed()} says how many. */
public final class SubmitException extends RuntimeException {
    private final long failed;

    public SubmitException(long failed, Throwable firstCause) {
        super(failed + " request(s) could not be sent: " + firstCause, firstCause);
        this.failed = failed;
    }

    public long failed() {
        return failed;
    }
}
