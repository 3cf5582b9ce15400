# _optsets.sh - option sets of the golden tests: "name:options".
OPTSETS=(
    "default:"
    "t0.2x100y30:--threshold=0.2 --x=100 --y=30"
    "t0x40y10:--threshold=0 --x=40 --y=10"
    "t20x1000y5:--threshold=20% --x=1000 --y=5"
)
