package io.coord.example;

import io.coord.fence.JdbcFenceGuard;
import io.coord.spring.boot.EnableCoordConfig;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A small service on the Coord starter: {@link Pricing} is a hot-reloaded config bean, and
 * {@link Ledger#post()} is a leader-only job whose writes to an H2 table are fenced by its token.
 */
@SpringBootApplication
@EnableScheduling
@EnableCoordConfig(Pricing.class)
public class ExampleApplication {
    public static void main(String[] args) {
        SpringApplication.run(ExampleApplication.class, args);
    }

    @Bean
    DataSource dataSource(@Value("${example.db-url:jdbc:h2:mem:example;DB_CLOSE_DELAY=-1}") String url) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(url);
        return h2;
    }

    @Bean
    JdbcFenceGuard fence(DataSource dataSource) {
        return new JdbcFenceGuard(dataSource, "coord_fence");
    }
}
