-- POST /introspect of a pre-issued access token (BENCH_TOKEN), client_secret_basic.
wrk.method = "POST"
wrk.body = "token=" .. os.getenv("BENCH_TOKEN")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic " .. os.getenv("BENCH_BASIC")
