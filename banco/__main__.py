from banco.cli import main

main()
