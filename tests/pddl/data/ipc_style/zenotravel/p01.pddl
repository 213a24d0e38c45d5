; One plane with little fuel, two travellers going opposite ways.
(define (problem zenotravel-style-1)
  (:domain zenotravel-style)
  (:objects plane - aircraft
            ada ben - person
            rome oslo lima - city
            f0 f1 f2 - fuel)
  (:init (at plane rome) (fuel-level plane f1)
         (at ada rome) (at ben oslo)
         (next f0 f1) (next f1 f2))
  (:goal (and (at ada oslo) (at ben rome) (at plane lima))))
