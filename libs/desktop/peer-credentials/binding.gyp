{
  "targets": [
    {
      "target_name": "peer_credentials",
      "sources": ["src/peer_credentials.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"],
      "xcode_settings": { "OTHER_CFLAGS": ["-Wall", "-Wextra", "-O2"] }
    }
  ]
}
