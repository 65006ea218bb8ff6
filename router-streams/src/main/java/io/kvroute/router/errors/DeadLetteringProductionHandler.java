package io.kvroute.router.errors;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request whose dispatch record the broker refuses as too large is dead-lettered and rejected
 * (retrying cannot help); every other production error fails as Streams' default does.
 */
public final class DeadLetteringProductionHandler implements ProductionExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetteringProductionHandler.class);
    private DeadLetters deadLetters;

    @Override
    public void configure(Map<String, ?> configs) {
        deadLetters = new DeadLetters(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
        if (!(exception instanceof RecordTooLargeException)) {
            return Response.fail();
        }
        LOG.error("dead-lettering the request at {}-{}@{}: its record for {} is too large for the broker ({} bytes)",
                context.topic(), context.partition(), context.offset(), record.topic(),
                record.value() == null ? 0 : record.value().length);
        return Response.resume(deadLetters.records(context, exception, System.currentTimeMillis()));
    }
}
