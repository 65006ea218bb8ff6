package io.kvroute.router.routing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class RoutingPackageArchitectureTest {

    @Test
    void shouldKeepTheRoutingPackageFreeOfKafkaAndAvro() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.kvroute.router");
        noClasses().that().resideInAPackage("io.kvroute.router.routing..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "org.apache.avro..",
                        "io.kvroute.schemas..", "io.micrometer..")
                .check(classes);
    }
}
