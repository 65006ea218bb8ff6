package io.kvroute.worker.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The engines run in a discrete-event simulator too: they must not know Kafka, schemas or routing. */
class EngineArchitectureTest {
    private final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kvroute.worker");

    @Test
    void shouldKeepEnginesFreeOfKafkaAndSchemas() {
        noClasses().that().resideInAPackage("io.kvroute.worker.engine..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "io.kvroute.schemas..",
                        "io.kvroute.worker.consumer..", "io.kvroute.worker.telemetry..", "io.kvroute.worker.config..")
                .check(classes);
    }
}
