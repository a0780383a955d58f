package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.coord.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Every bad {@code coord.*} property fails startup, and the failure analysis Spring Boot prints
 * names the property and the value. The analyzers are loaded from {@code spring.factories} as
 * Spring Boot loads them, so the registration is checked too.
 */
class InvalidCoordPropertiesIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class));

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "coord.connect-string | localhost               | coord.connect-string=localhost",
        "coord.connect-string | localhost:99999         | coord.connect-string=localhost:99999",
        "coord.connect-string |                         | coord.connect-string=",
        "coord.session-timeout | PT-5S                  | coord.session-timeout=-5s",
        "coord.connection-timeout | PT0S                | coord.connection-timeout=0s",
        "coord.namespace      | /orders                 | coord.namespace=/orders",
        "coord.acl-policy     | sideways                | coord.acl-policy=sideways",
        "coord.acl-policy     | creator                 | coord.acl-policy=creator",
        "coord.digest.user    | ali:ce                  | coord.digest.user=ali:ce, coord.digest.password=secret",
        "coord.digest.password |                        | coord.digest.user=alice",
        "coord.tls.trust-store | /no/such/truststore.p12 | coord.tls.enabled=true, coord.tls.trust-store=/no/such/truststore.p12",
    })
    void aBadPropertyFailsStartupNamingIt(String property, String value, String properties) {
        // value: as the bound property shows it (a Duration as ISO-8601); empty when it is missing
        List<String> values = new ArrayList<>();
        if (!properties.contains("coord.connect-string")) {
            values.add("coord.connect-string=" + zk.connectString());
        }
        for (String p : properties.split(",")) {
            values.add(p.strip());
        }
        runner.withPropertyValues(values.toArray(String[]::new)).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("Coord property " + property);
            if (value != null) {
                assertThat(analysis.getDescription()).contains("'" + value + "'");
            }
            assertThat(analysis.getAction()).contains(property);
        });
    }

    @Test
    void aSessionTimeoutTheServerWouldClampFailsStartupNamingIt() {
        // The embedded server's tickTime is 500 ms: it grants at most 10 s.
        runner.withPropertyValues("coord.connect-string=" + zk.connectString(), "coord.namespace=" + zk.namespace(),
                "coord.session-timeout=60s").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("Coord property coord.session-timeout = 'PT1M'")
                    .contains("the server granted PT10S");
        });
    }

    /** What Spring Boot's FailureAnalyzers does: the first registered analyzer with an answer. */
    static FailureAnalysis analyze(Throwable failure) {
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(InvalidCoordPropertiesIT.class.getClassLoader())
                .load(FailureAnalyzer.class, (type, name, cannotCreate) -> { /* analyzers that need arguments: not ours */ });
        for (FailureAnalyzer analyzer : analyzers) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        throw new AssertionError("no failure analyzer explains " + failure, failure);
    }
}
