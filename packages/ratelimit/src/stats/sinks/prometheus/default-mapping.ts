/**
 * The reference's embedded default mapping (`src/stats/prom/default_mapper.yaml`), in the
 * statsd_exporter format. It differs from the reference README: shadow_mode is mapped at one level
 * too, and deeper per-rule stats are matched by a regex that folds levels past key2.
 */
export const defaultMappingYaml = String.raw`
mappings:
  - match: "ratelimit.service.rate_limit.*.*.near_limit"
    name: "ratelimit_service_rate_limit_near_limit"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2" }
  - match: "ratelimit.service.rate_limit.*.*.over_limit"
    name: "ratelimit_service_rate_limit_over_limit"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2" }
  - match: "ratelimit.service.rate_limit.*.*.total_hits"
    name: "ratelimit_service_rate_limit_total_hits"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2" }
  - match: "ratelimit.service.rate_limit.*.*.within_limit"
    name: "ratelimit_service_rate_limit_within_limit"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2" }
  - match: "ratelimit.service.rate_limit.*.*.shadow_mode"
    name: "ratelimit_service_rate_limit_shadow_mode"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2" }

  - match: "ratelimit\\.service\\.rate_limit\\.(.*)\\.(.*)\\.(.*)(\\..*)\\.near_limit"
    match_type: regex
    name: "ratelimit_service_rate_limit_near_limit"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2", key2: "$3" }
  - match: "ratelimit\\.service\\.rate_limit\\.(.*)\\.(.*)\\.(.*)(\\..*)\\.over_limit"
    match_type: regex
    name: "ratelimit_service_rate_limit_over_limit"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2", key2: "$3" }
  - match: "ratelimit\\.service\\.rate_limit\\.(.*)\\.(.*)\\.(.*)(\\..*)\\.total_hits"
    match_type: regex
    name: "ratelimit_service_rate_limit_total_hits"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2", key2: "$3" }
  - match: "ratelimit\\.service\\.rate_limit\\.(.*)\\.(.*)\\.(.*)(\\..*)\\.within_limit"
    match_type: regex
    name: "ratelimit_service_rate_limit_within_limit"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2", key2: "$3" }
  - match: "ratelimit\\.service\\.rate_limit\\.(.*)\\.(.*)\\.(.*)(\\..*)\\.shadow_mode"
    match_type: regex
    name: "ratelimit_service_rate_limit_shadow_mode"
    timer_type: "histogram"
    labels: { domain: "$1", key1: "$2", key2: "$3" }

  - match: "ratelimit.service.call.should_rate_limit.*"
    name: "ratelimit_service_should_rate_limit_error"
    match_metric_type: counter
    labels: { err_type: "$1" }

  - match: "ratelimit_server.*.total_requests"
    name: "ratelimit_service_total_requests"
    match_metric_type: counter
    labels: { grpc_method: "$1" }
  - match: "ratelimit_server.*.response_time"
    name: "ratelimit_service_response_time_seconds"
    timer_type: histogram
    labels: { grpc_method: "$1" }

  - match: "ratelimit.service.config_load_success"
    name: "ratelimit_service_config_load_success"
    match_metric_type: counter
  - match: "ratelimit.service.config_load_error"
    name: "ratelimit_service_config_load_error"
    match_metric_type: counter
`;
