from msgperf.cli import main

main()
