; Two crates change places between a depot and a distributor.
(define (problem depot-style-1)
  (:domain depot-style)
  (:objects yard - depot
            shop - distributor
            truck0 - truck
            pallet0 pallet1 - pallet
            box0 box1 - crate
            hoist0 hoist1 - hoist)
  (:init (at pallet0 yard) (clear box1) (at pallet1 shop) (clear box0)
         (at truck0 shop)
         (at hoist0 yard) (available hoist0) (at hoist1 shop) (available hoist1)
         (at box0 shop) (on box0 pallet1) (at box1 yard) (on box1 pallet0))
  (:goal (and (on box0 pallet0) (on box1 pallet1))))
