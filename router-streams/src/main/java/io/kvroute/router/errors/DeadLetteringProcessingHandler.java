package io.kvroute.router.errors;

import io.kvroute.schemas.registry.SchemaRegistryException;
import java.util.Map;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request whose processing throws (a bug, or input no validation foresaw) is dead-lettered and
 * rejected instead of failing the task forever; a schema-registry outage still fails the task,
 * so the record is retried once the registry answers.
 */
public final class DeadLetteringProcessingHandler implements ProcessingExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetteringProcessingHandler.class);
    private DeadLetters deadLetters;

    @Override
    public void configure(Map<String, ?> configs) {
        deadLetters = new DeadLetters(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        if (SchemaRegistryException.isOutage(exception)) {
            return Response.fail();
        }
        LOG.error("dead-lettering the record at {}-{}@{} that processor {} could not process: {}", context.topic(),
                context.partition(), context.offset(), context.processorNodeId(), exception.toString());
        return Response.resume(deadLetters.records(context, exception, System.currentTimeMillis()));
    }
}
